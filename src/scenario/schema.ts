/**
 * The compiled scenario schema: schema/scenario.schema.json is the single source of every
 * scenario key; this module only loads it once and hands out the ajv validator built from it.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type KeywordDefinition, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Where the schema sits relative to this module, the same from src/scenario and dist/scenario. */
export const SCENARIO_SCHEMA_PATH = new URL('../../schema/scenario.schema.json', import.meta.url);

export const SCENARIO_SCHEMA: Record<string, unknown> = JSON.parse(readFileSync(SCENARIO_SCHEMA_PATH, 'utf8'));

const SCHEMA_ID = SCENARIO_SCHEMA.$id as string;

/** Marks a rule key as an effect and says which kind; scripts/gen-scenario-types.mjs reads it. */
export const EFFECT_KEYWORD: KeywordDefinition = { keyword: 'x-aap-effect', schemaType: 'string', metaSchema: { enum: ['terminal', 'modifier'] } };

const ajv = new Ajv2020({
  allErrors: true,
  // verbose keeps the offending value and its schema on every error, for readable messages.
  verbose: true,
  // Fills in documented defaults (enabled: true, key: ip, profile: auto, report thresholds …).
  useDefaults: true,
  strict: true,
  // if/then schemas name required keys declared in the enclosing object, which is fine.
  strictRequired: false,
  allowUnionTypes: true,
});
addFormats.default(ajv, ['json-pointer']);
ajv.addKeyword(EFFECT_KEYWORD);
ajv.addSchema(SCENARIO_SCHEMA);

/** The validator for a whole scenario document. */
export const validateScenarioDocument: ValidateFunction = ajv.getSchema(SCHEMA_ID)!;

/** A validator for one named definition (`Rule`, `ErrorSpec`, …) of the schema. */
export function definitionValidator(name: string): ValidateFunction {
  return ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`)!;
}

/** A schema node by JSON Pointer reference (`#/$defs/ErrorSpec`), for turning errors into sentences. */
export function resolveSchemaRef(ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#/$defs/')) return undefined;
  const defs = SCENARIO_SCHEMA.$defs as Record<string, Record<string, unknown>>;
  return defs[ref.slice('#/$defs/'.length)];
}

export type SchemaError = ErrorObject;
