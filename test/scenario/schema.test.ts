import t from 'tap';
import { readFile } from 'node:fs/promises';
import { A2A_ERROR_NAMES, AAP_CODES } from '../../src/protocol/codes.js';
import { SCENARIO_SCHEMA } from '../../src/scenario/schema.js';
import { MODIFIER_EFFECTS, TERMINAL_EFFECTS } from '../../src/scenario/effect-kinds.js';
// @ts-expect-error the generator is a plain .mjs script without type declarations
import { generateScenarioTypes } from '../../scripts/gen-scenario-types.mjs';

type SchemaNode = Record<string, unknown>;
const defs = SCENARIO_SCHEMA.$defs as Record<string, SchemaNode>;
const ruleProperties = (defs.Rule!.properties ?? {}) as Record<string, SchemaNode>;

t.test('the schema enums are the code tables of src/protocol/codes.ts', async (t) => {
  t.same(defs.AapCode!.enum, [...AAP_CODES]);
  t.same(ruleProperties.a2a_error!.enum, [...A2A_ERROR_NAMES]);
});

t.test('the committed TypeScript types are what the schema generates', async (t) => {
  const committed = await readFile(new URL('../../src/scenario/types.generated.ts', import.meta.url), 'utf8');
  const fresh: string = await generateScenarioTypes();
  t.equal(committed, fresh, 'src/scenario/types.generated.ts is stale: run node scripts/gen-scenario-types.mjs');
});

/** Every object schema in the document, with a JSON-Pointer-like label. */
function* objectSchemas(node: unknown, at: string): Generator<[string, SchemaNode]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* objectSchemas(item, `${at}/${i}`);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as SchemaNode;
  if (schema.properties) yield [at, schema];
  for (const [key, child] of Object.entries(schema)) if (key !== 'enum' && key !== 'default') yield* objectSchemas(child, `${at}/${key}`);
}

t.test('every object schema closes its keys and every property explains itself', async (t) => {
  let checked = 0;
  for (const [at, schema] of objectSchemas(SCENARIO_SCHEMA, '#')) {
    if (at.includes('/if') || at.includes('/else')) continue; // conditions, not shapes
    t.equal(schema.additionalProperties, false, `${at} rejects unknown keys`);
    for (const [name, property] of Object.entries(schema.properties as Record<string, SchemaNode>)) {
      const described =
        typeof property.description === 'string' ||
        (typeof property.$ref === 'string' && typeof defs[property.$ref.split('/').pop()!]?.description === 'string');
      t.ok(described, `${at}/properties/${name} has a description`);
      checked += 1;
    }
  }
  t.ok(checked > 60, `checked ${checked} properties`);
});

t.test('the effect kinds name exactly the effect keys of a rule', async (t) => {
  for (const key of [...TERMINAL_EFFECTS, ...MODIFIER_EFFECTS]) t.ok(ruleProperties[key], `${key} is a rule key`);
});
