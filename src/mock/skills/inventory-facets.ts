import { computeFacets, matchesFilters, type InventoryFilters } from '../inventory-query.js';
import { success, type SkillHandler } from './skill-handler.js';

export const inventoryFacets: SkillHandler = (request, ctx) => {
  const filters = request.filters as InventoryFilters | undefined;
  return success(computeFacets(ctx.inventory.vehicles.filter((v) => matchesFilters(v, filters))));
};
