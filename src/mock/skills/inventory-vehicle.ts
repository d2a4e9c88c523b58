import type { VehicleKey } from '../inventory.js';
import { failure, success, type SkillHandler } from './skill-handler.js';

export const inventoryVehicle: SkillHandler = (request, ctx) => {
  const key: VehicleKey = {};
  for (const field of ['vin', 'stock', 'vehicle_id'] as const) {
    if (typeof request[field] === 'string') key[field] = request[field];
  }
  const result = ctx.inventory.lookup(key);
  if (result.found === 'listed') return success({ ...result.vehicle });
  if (result.found === 'sold') {
    return failure('VEHICLE_UNAVAILABLE', {
      message: `Vehicle ${result.vehicle.vin} (stock ${result.vehicle.stock}) has been sold.`,
      details: { ...key, status: 'sold' },
    });
  }
  return failure('VEHICLE_NOT_FOUND', { message: 'No listing matches the supplied vehicle identifiers.', details: { ...key } });
};
