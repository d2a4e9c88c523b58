/**
 * The response schemas of the five skills (schema/aap/*-response.schema.json), compiled once,
 * and the request validation of protocol/request-schemas.ts (the mock's own), so "every problem at once" is measured
 * against the same schemas that define a valid request.
 */
import type { ValidateFunction } from 'ajv';
import * as compiled from './response-validators.generated.js';
import type { AapSkill } from '../codes.js';
import { validateSkillRequest } from '../request-schemas.js';

/** Media-type and schema slug of a skill; `inventory.vehicle` is AAP's one irregular name. */
export function skillSlug(skill: AapSkill): string {
  return skill === 'inventory.vehicle' ? 'vehicle-detail' : skill.replace(/\./g, '-');
}

/** The compiled validators, by skill (compiled at build time: scripts/gen-validators.mjs holds their ajv options). */
const responseValidators: Record<AapSkill, ValidateFunction> = {
  'dealer.information': compiled.dealer_information,
  'inventory.facets': compiled.inventory_facets,
  'inventory.search': compiled.inventory_search,
  'inventory.vehicle': compiled.inventory_vehicle,
  'lead.submit': compiled.lead_submit,
};

export interface SchemaProblem {
  pointer: string;
  message: string;
}

/** Every way a response payload misses its skill's schema; empty when it matches. */
export function responseProblems(skill: AapSkill, payload: unknown): SchemaProblem[] {
  const validate = responseValidators[skill];
  if (validate(payload)) return [];
  return (validate.errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? `/${String((e.params as { missingProperty?: unknown }).missingProperty)}` : '';
    return { pointer: `${e.instancePath}${missing}`, message: `${e.keyword}: ${e.message ?? 'is invalid'}` };
  });
}

/** The instance locations every validation problem of a request would be reported at. */
export function requestProblemLocations(skill: AapSkill, data: unknown): { pointer: string; keyword: string }[] {
  return validateSkillRequest(skill, data).map((p) => ({ pointer: p.instanceLocation, keyword: p.keyword }));
}
