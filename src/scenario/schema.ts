/**
 * The compiled scenario schema: schema/scenario.schema.json is the single source of every
 * scenario key; this module only loads it once and hands out the ajv validator built from it.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, KeywordDefinition, ValidateFunction } from 'ajv';
// Compiled from the schema at build time (scripts/gen-validators.mjs, where the ajv options live):
// compiling it here cost every process that loads a scenario about a third of a second.
import * as compiled from './scenario-validators.generated.js';

/** Where the schema sits relative to this module, the same from src/scenario and dist/scenario. */
export const SCENARIO_SCHEMA_PATH = new URL('../../schema/scenario.schema.json', import.meta.url);

export const SCENARIO_SCHEMA: Record<string, unknown> = JSON.parse(readFileSync(SCENARIO_SCHEMA_PATH, 'utf8'));

/** Marks a rule key as an effect and says which kind; scripts/gen-scenario-types.mjs reads it. */
export const EFFECT_KEYWORD: KeywordDefinition = { keyword: 'x-aap-effect', schemaType: 'string', metaSchema: { enum: ['terminal', 'modifier'] } };

/** The validator for a whole scenario document. */
export const validateScenarioDocument: ValidateFunction = compiled.scenario;

/** A validator for one named definition (`Rule`, `ErrorSpec`, …) of the schema. */
export function definitionValidator(name: string): ValidateFunction {
  const validate = (compiled as Record<string, ValidateFunction | undefined>)[`def_${name}`];
  if (!validate) throw new Error(`the scenario schema has no definition ${name}`);
  return validate;
}

/** A schema node by JSON Pointer reference (`#/$defs/ErrorSpec`), for turning errors into sentences. */
export function resolveSchemaRef(ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#/$defs/')) return undefined;
  const defs = SCENARIO_SCHEMA.$defs as Record<string, Record<string, unknown>>;
  return defs[ref.slice('#/$defs/'.length)];
}

export type SchemaError = ErrorObject;
