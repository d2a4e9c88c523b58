/** Public surface of the embedded mock dealer. */
export { createMockDealer, type MockDealer, type MockDealerOptions } from './dealer.js';
export { startMockDealer, type RunningMockDealer } from './server.js';
export { Inventory, type VehicleKey, type VehicleLookup } from './inventory.js';
export { generateInventory, DEFAULT_INVENTORY_SEED, LISTED_VEHICLE_COUNT, SOLD_VEHICLE_COUNT } from './inventory-generator.js';
export { loadInventoryFile, parseInventory } from './inventory-file.js';
export { AGENT_CARD_PATH, RPC_PATH, buildAgentCard } from './card.js';
export { SKILL_IDS, SKILL_TABLE, requestMediaType, responseMediaType, type SkillId } from './skill-table.js';
export { BOOKING_HORIZON_DAYS } from './appointments.js';
export type { Vehicle, DealerInfo, Rooftop } from './vehicle.js';
