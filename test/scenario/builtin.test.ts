// The built-in scenarios are part of the product: each one must validate, say what it does and
// carry the editor hint that points at the schema.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILTIN_SCENARIO_DIR, listBuiltinScenarios, loadScenarioRef } from '../../src/scenario/load.js';
import { terminalEffectsOf } from '../../src/scenario/effect-kinds.js';
import { MODIFIER_EFFECTS } from '../../src/scenario/effect-keys.generated.js';

/** The modifiers of the dealer's replies, from the registry's list: `card` acts on the agent card and is counted apart. */
const REPLY_MODIFIERS: readonly string[] = MODIFIER_EFFECTS.filter((k) => k !== 'card');

const EXPECTED = [
  'activation-required',
  'card-chaos',
  'card-forgery',
  'demo',
  'flaky-internal',
  'full-gauntlet',
  'inventory-churn',
  'lead-gauntlet',
  'lead-recovery',
  'lossy-envelope',
  'network-chaos',
  'passthrough',
  'rate-limit-storm',
  'slow-dealer',
  'stream-chaos',
  'version-mismatch',
];

const list = await listBuiltinScenarios();
t.same(
  list.map((s) => s.name),
  EXPECTED,
  'exactly the documented built-ins',
);

for (const { name } of list) {
  t.test(name, async (t) => {
    const text = await readFile(path.join(BUILTIN_SCENARIO_DIR, `${name}.yaml`), 'utf8');
    t.equal(text.split('\n')[0], '# yaml-language-server: $schema=../schema/scenario.schema.json', 'first line points editors at the schema');
    const result = await loadScenarioRef(name);
    t.ok(result.ok, 'validates');
    if (!result.ok) return;
    t.equal(result.scenario.scenario, name, 'its scenario name is its file name');
    t.ok((result.scenario.description ?? '').length > 40, 'says what the buyer meets');
  });
}

t.test('the demo scenario lets a newcomer hit RATE_LIMITED on inventory.search quickly', async (t) => {
  const demo = await loadScenarioRef('demo');
  if (!demo.ok) return t.fail('demo must load');
  const throttle = demo.scenario.rules!.find((r) => r.rate_limit);
  t.same(throttle?.match?.skill, 'inventory.search');
  t.ok(throttle!.rate_limit!.limit <= 5 && throttle!.rate_limit!.window_ms >= 10000, 'a handful of curls within the window is enough');
});

t.test('each scenario uses the effects its name promises', async (t) => {
  const effectsOf = async (name: string) => {
    const r = await loadScenarioRef(name);
    if (!r.ok) throw new Error(`${name} must load`);
    return r.scenario.rules!.flatMap((rule) => [...terminalEffectsOf(rule), ...Object.keys(rule).filter((k) => REPLY_MODIFIERS.includes(k))]);
  };
  t.same(await effectsOf('passthrough'), []);
  t.ok((await effectsOf('rate-limit-storm')).every((e) => e === 'rate_limit'));
  t.ok((await effectsOf('activation-required')).includes('require'));
  t.ok((await effectsOf('version-mismatch')).includes('require'));
  t.ok((await effectsOf('inventory-churn')).includes('patch'));
  t.ok((await effectsOf('lossy-envelope')).includes('envelope'));
  t.ok((await effectsOf('stream-chaos')).every((e) => e === 'stream'));
  const card = await loadScenarioRef('card-chaos');
  t.ok(
    card.ok && card.scenario.rules!.every((r) => r.card !== undefined && terminalEffectsOf(r).length === 0 && !REPLY_MODIFIERS.some((k) => k in r)),
    'card-chaos has card effects only',
  );
  t.ok((await effectsOf('slow-dealer')).every((e) => e === 'delay' || e === 'bandwidth'));
  const network = await effectsOf('network-chaos');
  t.ok(network.includes('network') && network.includes('http'));
  const gauntlet = new Set(await effectsOf('full-gauntlet'));
  for (const e of ['delay', 'envelope', 'stream', 'rate_limit', 'patch', 'error', 'network', 'http']) t.ok(gauntlet.has(e), `full-gauntlet has ${e}`);
});
