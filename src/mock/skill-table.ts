/**
 * The five AAP skills as the mock dealer advertises and serves them: ids, media-type slugs,
 * card wording. The card, request validation and the handlers all key off this one table.
 */
import { AAP_SKILLS, AAP_SKILL_SLUGS, isAapSkill } from '../protocol/codes.js';

export const SKILL_IDS = AAP_SKILLS;
export type SkillId = (typeof SKILL_IDS)[number];

interface SkillInfo {
  /** Media-type slug; `inventory.vehicle` travels as `vehicle-detail`. */
  slug: string;
  name: string;
  description: string;
  tags: string[];
}

export const SKILL_TABLE: Record<SkillId, SkillInfo> = {
  'dealer.information': {
    slug: AAP_SKILL_SLUGS['dealer.information'],
    name: 'Dealer Information',
    description: 'The dealership, its rooftops, phones, opening hours and timezone.',
    tags: ['dealer'],
  },
  'inventory.facets': {
    slug: AAP_SKILL_SLUGS['inventory.facets'],
    name: 'Inventory Facets',
    description: 'Counts and ranges over the inventory, narrowed by optional filters.',
    tags: ['inventory'],
  },
  'inventory.search': {
    slug: AAP_SKILL_SLUGS['inventory.search'],
    name: 'Inventory Search',
    description: 'Search in-stock vehicles with filters, sorting and pagination.',
    tags: ['inventory'],
  },
  'inventory.vehicle': {
    slug: AAP_SKILL_SLUGS['inventory.vehicle'],
    name: 'Vehicle Detail',
    description: 'One vehicle by VIN, stock number or vehicle id.',
    tags: ['inventory'],
  },
  'lead.submit': {
    slug: AAP_SKILL_SLUGS['lead.submit'],
    name: 'Submit Lead',
    description: 'Send a consented customer lead, optionally with an appointment request.',
    tags: ['lead'],
  },
};

export const isSkillId: (value: unknown) => value is SkillId = isAapSkill;

export function requestMediaType(skill: SkillId): string {
  return `application/vnd.autoagent.${SKILL_TABLE[skill].slug}-request+json`;
}

export function responseMediaType(skill: SkillId): string {
  return `application/vnd.autoagent.${SKILL_TABLE[skill].slug}-response+json`;
}
