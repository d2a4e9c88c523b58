/**
 * Validates skill request payloads against the JSON Schemas in schema/aap/ and reports every
 * problem at once, in the `{instanceLocation, keyword, error}` shape of AAP's details.errors[].
 */
import { readFileSync } from 'node:fs';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidationProblem } from '../protocol/envelopes.js';
import { SKILL_IDS, SKILL_TABLE, type SkillId } from './skill-table.js';

/** schema/ sits two levels above both src/mock/ and dist/mock/, so one relative URL serves both. */
const SCHEMA_DIR = new URL('../../schema/aap/', import.meta.url);

function readSchema(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;
}

function compileValidators(): Record<SkillId, ValidateFunction> {
  // strictRequired is off: anyOf branches name properties declared beside them, which is the point.
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false });
  addFormats.default(ajv);
  ajv.addSchema(readSchema('common.schema.json'));
  const out = {} as Record<SkillId, ValidateFunction>;
  for (const skill of SKILL_IDS) out[skill] = ajv.compile(readSchema(`${SKILL_TABLE[skill].slug}-request.schema.json`));
  return out;
}

const validators = compileValidators();

/** Every schema problem of one skill request; empty when the payload is valid. */
export function validateSkillRequest(skill: SkillId, data: unknown): ValidationProblem[] {
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
