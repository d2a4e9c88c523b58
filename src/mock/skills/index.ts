/** Skill id → handler: the only place that knows which function serves which skill. */
import type { SkillId } from '../skill-table.js';
import { dealerInformation } from './dealer-information.js';
import { inventoryFacets } from './inventory-facets.js';
import { inventorySearch } from './inventory-search.js';
import { inventoryVehicle } from './inventory-vehicle.js';
import { leadSubmit } from './lead-submit.js';
import type { SkillHandler } from './skill-handler.js';

export const SKILL_HANDLERS: Record<SkillId, SkillHandler> = {
  'dealer.information': dealerInformation,
  'inventory.facets': inventoryFacets,
  'inventory.search': inventorySearch,
  'inventory.vehicle': inventoryVehicle,
  'lead.submit': leadSubmit,
};

export type { SkillContext, SkillHandler, SkillOutcome } from './skill-handler.js';
