/**
 * The response schemas of the five skills (schema/aap/*-response.schema.json), compiled once,
 * and the request validation of protocol/request-schemas.ts (the mock's own), so "every problem at once" is measured
 * against the same schemas that define a valid request.
 */
import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { AAP_SKILLS, type AapSkill } from '../codes.js';
import { validateSkillRequest } from '../request-schemas.js';

/** schema/ sits three levels above both src/protocol/conformance/ and dist/protocol/conformance/. */
const SCHEMA_DIR = new URL('../../../schema/aap/', import.meta.url);

/** Media-type and schema slug of a skill; `inventory.vehicle` is AAP's one irregular name. */
export function skillSlug(skill: AapSkill): string {
  return skill === 'inventory.vehicle' ? 'vehicle-detail' : skill.replace(/\./g, '-');
}

function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;
}

let compiled: Record<AapSkill, ValidateFunction> | undefined;

function responseValidators(): Record<AapSkill, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats.default(ajv);
  ajv.addSchema(readSchema('response-common.schema.json'));
  compiled = Object.fromEntries(AAP_SKILLS.map((s) => [s, ajv.compile(readSchema(`${skillSlug(s)}-response.schema.json`))])) as Record<
    AapSkill,
    ValidateFunction
  >;
  return compiled;
}

export interface SchemaProblem {
  pointer: string;
  message: string;
}

/** Every way a response payload misses its skill's schema; empty when it matches. */
export function responseProblems(skill: AapSkill, payload: unknown): SchemaProblem[] {
  const validate = responseValidators()[skill];
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
