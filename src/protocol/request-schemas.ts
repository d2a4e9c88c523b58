/**
 * The AAP request schemas of the five skills (schema/aap/, JSON Schema 2020-12) and the checks
 * lead.submit adds on top of them. The mock dealer validates with these, and the proxy derives
 * the `details.errors[]` of an injected validation error from the same ones: one source.
 * Problems come in the `{instanceLocation, keyword, error}` shape of AAP's details.errors[].
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import * as compiled from './request-validators.generated.js';
import { AAP_SKILLS, AAP_SKILL_SLUGS, SALE_CONDITIONS, TRADE_IN_CONDITIONS, type AapSkill } from './codes.js';
import type { ValidationProblem } from './validation-problem.js';

/** schema/ sits two levels above both src/protocol/ and dist/protocol/, so one relative URL serves both. */
const SCHEMA_DIR = new URL('../../schema/aap/', import.meta.url);
const COMMON_ID = 'urn:aap-chaos:aap:common';

type JsonSchema = Record<string, unknown>;

function readSchema(file: string): JsonSchema {
  return JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8')) as JsonSchema;
}

const commonSchema = readSchema('common.schema.json');
const requestSchemas = Object.fromEntries(AAP_SKILLS.map((skill) => [skill, readSchema(`${AAP_SKILL_SLUGS[skill]}-request.schema.json`)])) as Record<
  AapSkill,
  JsonSchema
>;

/** The compiled validators, by skill (compiled at build time: scripts/gen-validators.mjs holds their ajv options). */
const validators: Record<AapSkill, ValidateFunction> = {
  'dealer.information': compiled.dealer_information,
  'inventory.facets': compiled.inventory_facets,
  'inventory.search': compiled.inventory_search,
  'inventory.vehicle': compiled.inventory_vehicle,
  'lead.submit': compiled.lead_submit,
};

/** Every schema problem of one skill request; empty when the payload is valid. */
export function validateSkillRequest(skill: AapSkill, data: unknown): ValidationProblem[] {
  const validate = validators[skill];
  if (validate(data)) return [];
  return toProblems(validate.errors ?? []);
}

/** Keywords whose failure ajv reports once more per inner schema; the inner errors are folded into one line. */
const FOLDED_KEYWORDS = new Set(['anyOf', 'propertyNames']);

/**
 * ajv reports an anyOf failure as one error per branch plus the anyOf itself; a buyer needs
 * one line ("needs one of vin, stock, vehicle_id"), so inner errors are folded into it.
 */
export function toProblems(errors: ErrorObject[]): ValidationProblem[] {
  const folded = errors.filter((e) => FOLDED_KEYWORDS.has(e.keyword)).map((e) => `${e.schemaPath}/`);
  return errors.filter((e) => !folded.some((prefix) => e.schemaPath.startsWith(prefix))).map((e) => toProblem(e, errors));
}

function toProblem(e: ErrorObject, all: ErrorObject[]): ValidationProblem {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { instanceLocation: `${e.instancePath}/${String(params.additionalProperty)}`, keyword: e.keyword, error: 'unknown property' };
    case 'required':
      return { instanceLocation: `${e.instancePath}/${String(params.missingProperty)}`, keyword: e.keyword, error: 'is required' };
    case 'anyOf': {
      const missing = all
        .filter((b) => b.keyword === 'required' && b.schemaPath.startsWith(`${e.schemaPath}/`))
        .map((b) => String((b.params as Record<string, unknown>).missingProperty));
      const error = missing.length > 0 ? `must have at least one of: ${missing.join(', ')}` : (e.message ?? 'must match a schema in anyOf');
      return { instanceLocation: e.instancePath, keyword: e.keyword, error };
    }
    case 'propertyNames':
      return { instanceLocation: `${e.instancePath}/${String(params.propertyName)}`, keyword: e.keyword, error: 'unknown property' };
    case 'enum':
      return { instanceLocation: e.instancePath, keyword: e.keyword, error: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    default:
      return { instanceLocation: e.instancePath, keyword: e.keyword, error: e.message ?? 'is invalid' };
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The one condition pointer of each lead context, with the vocabulary it must use (INVALID_CONDITION). */
export const CONDITION_FIELDS = [
  { field: 'vehicle_of_interest', allowed: SALE_CONDITIONS },
  { field: 'trade_in', allowed: TRADE_IN_CONDITIONS },
] as const;

/**
 * lead.submit's condition rule: a sale condition in a trade-in or the other way round. Reads any
 * payload safely, also one that failed the schema, so every stage can run and be merged.
 */
export function conditionProblems(lead: unknown): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const { field, allowed } of CONDITION_FIELDS) {
    const condition = asRecord(asRecord(lead)?.[field])?.condition;
    if (typeof condition === 'string' && !allowed.includes(condition)) {
      problems.push({ instanceLocation: `/${field}/condition`, keyword: 'enum', error: `must be one of: ${allowed.join(', ')}` });
    }
  }
  return problems;
}

/** lead.submit's test-drive rule: a test_drive appointment needs a vehicle_of_interest (MISSING_REQUIRED_FIELD). */
export function testDriveProblems(lead: unknown): ValidationProblem[] {
  const record = asRecord(lead);
  if (asRecord(record?.appointment)?.appointment_type !== 'test_drive' || record?.vehicle_of_interest !== undefined) return [];
  return [{ instanceLocation: '/vehicle_of_interest', keyword: 'required', error: 'is required when appointment.appointment_type is test_drive' }];
}

/** Resolves a `$ref` into common.schema.json (the only kind the request schemas use). */
function resolveRef(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(`${COMMON_ID}#/$defs/`)) return schema;
  return ((commonSchema.$defs as Record<string, JsonSchema>)[ref.slice(`${COMMON_ID}#/$defs/`.length)] ?? {}) as JsonSchema;
}

/**
 * Pointers to the fields the skill's schema requires of this payload, in schema order: the
 * top level's `required` (without `type`) and its `anyOf` alternatives, then those of every
 * object the payload contains. Absent fields first, since those are what a buyer would be told of.
 */
export function requiredFieldPointers(skill: AapSkill, data: unknown): string[] {
  const absent: string[] = [];
  const present: string[] = [];
  const walk = (raw: JsonSchema, value: Record<string, unknown>, pointer: string): void => {
    const schema = resolveRef(raw);
    const names = [
      ...((schema.required as string[] | undefined) ?? []),
      ...((schema.anyOf as JsonSchema[] | undefined) ?? []).flatMap((alt) => (alt.required as string[] | undefined) ?? []),
    ];
    for (const name of names) {
      if (pointer === '' && name === 'type') continue;
      (value[name] === undefined ? absent : present).push(`${pointer}/${escapePointer(name)}`);
    }
    for (const [name, sub] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const child = asRecord(value[name]);
      if (child) walk(sub, child, `${pointer}/${escapePointer(name)}`);
    }
  };
  walk(requestSchemas[skill], asRecord(data) ?? {}, '');
  return [...new Set([...absent, ...present])];
}

/** RFC 6901: `~` and `/` inside a key. */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
