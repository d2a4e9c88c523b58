// The schema says which rule keys are effects and of which kind; the lists and the registry are
// generated from it, so no effect key is left without an implementation or silently ignored.
import t from 'tap';
import { readFile } from 'node:fs/promises';
// @ts-expect-error the generator is a plain .mjs script without type declarations
import { generateEffectKeys, generateEffectRegistry } from '../../scripts/gen-scenario-types.mjs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { EFFECT_KEYWORD, SCENARIO_SCHEMA } from '../../src/scenario/schema.js';
import { ERROR_SIBLING_KEYS, MODIFIER_EFFECTS, TERMINAL_EFFECTS } from '../../src/scenario/effect-kinds.js';
import { effectsOf, MODIFIER_EFFECTS as MODIFIERS, TERMINAL_EFFECTS as TERMINALS } from '../../src/effects/registry.js';
import { loadScenarioText } from '../../src/scenario/load.js';

const ruleProperties = (SCENARIO_SCHEMA.$defs as Record<string, { properties: Record<string, Record<string, unknown>> }>).Rule!.properties;
/** Rule keys that are not effects: how a rule is named, matched, keyed and fired, and the short error form's siblings. */
const RULE_KEYS = ['id', 'description', 'enabled', 'match', 'key', 'when', ...ERROR_SIBLING_KEYS];

t.test('every rule key is an annotated effect or a known rule key', async (t) => {
  for (const [key, property] of Object.entries(ruleProperties)) {
    const kind = property['x-aap-effect'];
    if (kind === undefined) t.ok(RULE_KEYS.includes(key), `${key}: not an effect, so it must be a rule key the engine reads`);
    else t.ok(kind === 'terminal' ? TERMINAL_EFFECTS.includes(key as never) : MODIFIER_EFFECTS.includes(key as never), `${key} is listed as ${kind}`);
  }
  t.same(
    [...TERMINAL_EFFECTS, ...MODIFIER_EFFECTS].sort(),
    Object.keys(ruleProperties)
      .filter((k) => ruleProperties[k]!['x-aap-effect'])
      .sort(),
  );
});

t.test('the generated lists and registry are fresh', async (t) => {
  t.equal(await readFile(new URL('../../src/scenario/effect-keys.generated.ts', import.meta.url), 'utf8'), await generateEffectKeys(), 'run npm run gen:types');
  t.equal(await readFile(new URL('../../src/effects/registry.generated.ts', import.meta.url), 'utf8'), await generateEffectRegistry(), 'run npm run gen:types');
});

t.test('each key builds an effect of its kind and name', async (t) => {
  for (const key of TERMINAL_EFFECTS) t.equal(typeof TERMINALS[key], 'function', key);
  for (const key of MODIFIER_EFFECTS) t.equal(typeof MODIFIERS[key], 'function', key);
  const loaded = loadScenarioText(
    'rules:\n  - { id: all, delay: { ms: 1 }, bandwidth: { bytes_per_s: 10 }, patch: [{ op: add, path: /x, value: 1 }], error: INTERNAL_ERROR }\n',
    'r.yaml',
  );
  t.ok(loaded.ok);
  if (!loaded.ok) return;
  const { terminal, modifiers } = effectsOf(loaded.scenario.rules![0]!);
  t.same([terminal?.name, terminal?.terminal], ['error', true]);
  t.same(
    modifiers.map((m) => [m.name, m.terminal]),
    [
      ['delay', false],
      ['patch', false],
      ['bandwidth', false],
    ],
    'modifiers in the schema order',
  );
});

t.test('an unknown x-aap-effect kind is refused by the validator keyword', async (t) => {
  const ajv = new Ajv2020({ strict: true });
  ajv.addKeyword(EFFECT_KEYWORD);
  t.throws(() => ajv.compile({ type: 'object', properties: { a: { 'x-aap-effect': 'sideways' } } }));
  t.doesNotThrow(() => ajv.compile({ type: 'object', properties: { a: { 'x-aap-effect': 'terminal' } } }));
});
