import { matchesFilters, sortVehicles, type InventoryFilters, type SortField } from '../inventory-query.js';
import { success, type SkillHandler } from './skill-handler.js';

export const DEFAULT_PAGE_SIZE = 20;

export const inventorySearch: SkillHandler = (request, ctx) => {
  const filters = request.filters as InventoryFilters | undefined;
  const pagination = (request.pagination ?? {}) as { skip?: number; limit?: number };
  const sort = request.sort as { field: SortField; order?: 'asc' | 'desc' } | undefined;
  const skip = pagination.skip ?? 0;
  const limit = pagination.limit ?? DEFAULT_PAGE_SIZE;
  const matching = ctx.inventory.vehicles.filter((v) => matchesFilters(v, filters));
  const ordered = sort ? sortVehicles(matching, sort.field, sort.order) : matching;
  return success({ total: matching.length, skip, limit, vehicles: ordered.slice(skip, skip + limit) });
};
