// The rule index against the plain walk: over generated scenarios and requests, the rules the
// index offers (then tested by their remaining conditions) are exactly the rules whose whole
// `match` holds, in scenario order, and the engine's decisions follow that order.
import t from 'tap';
import { SeededRandom } from '../../src/common/random.js';
import { loadScenarioText } from '../../src/scenario/load.js';
import { createEngine } from '../../src/engine/engine.js';
import { compileMatch, matchHolds, predicatesHold, RuleIndex, type CompiledMatch } from '../../src/engine/match.js';
import { classifyRequest, type ClassifiedRequest } from '../../src/protocol/classify.js';
import { isAgentCardPath } from '../../src/protocol/agent-card.js';
import type { Rule } from '../../src/scenario/types.generated.js';

const EXTENSION = 'https://example.test/ext/aap';
const SKILLS = ['inventory.search', 'inventory.vehicle', 'lead.submit', 'no.such'];
const METHODS = ['SendMessage', 'GetTask', 'Other'];
const DEALERS = ['d1', 'd2', 'd3'];
const MAKE = '/params/message/parts/0/data/make';
const YEAR = '/params/message/parts/0/data/year';

const oneOrList = <T>(rng: SeededRandom, items: readonly T[]): T | T[] =>
  rng.next() < 0.6
    ? rng.pick(items)
    : rng
        .sample(items, 2)
        .concat(rng.pick(items))
        .filter((v, i, a) => a.indexOf(v) === i);

function generatedMatch(rng: SeededRandom): Record<string, unknown> | undefined {
  if (rng.next() < 0.1) return undefined;
  const match: Record<string, unknown> = {};
  if (rng.next() < 0.4) match.method = oneOrList(rng, METHODS);
  if (rng.next() < 0.5) match.skill = oneOrList(rng, SKILLS);
  if (rng.next() < 0.15) match.path = rng.pick(['/a2a', '/other', '/.well-known/agent-card.json']);
  if (rng.next() < 0.2) match.dealer = oneOrList(rng, DEALERS);
  if (rng.next() < 0.15) match.extension = rng.pick(['missing', 'present']);
  if (rng.next() < 0.4) {
    const headers: Record<string, unknown> = {};
    for (const name of rng.sample(['x-lane', 'X-Team'], 2)) headers[name] = rng.pick<unknown>(['a', 'b', 'a', { regex: '^a' }, { absent: true }]);
    match.headers = headers;
  }
  if (rng.next() < 0.4) {
    match.body = rng.sample(
      [
        { pointer: MAKE, equals: rng.pick(['Honda', 'Ford']) },
        { pointer: YEAR, equals: rng.pick([2020, 2021]) },
        { pointer: YEAR, in: [2021, 2022] },
        { pointer: MAKE, exists: rng.next() < 0.5 },
        { pointer: MAKE, regex: '^H' },
      ],
      2,
    );
  }
  return Object.keys(match).length ? match : undefined;
}

function generatedRule(rng: SeededRandom, i: number): Record<string, unknown> {
  const rule: Record<string, unknown> = { id: `r${i}` };
  const match = generatedMatch(rng);
  if (match) rule.match = match;
  if (rng.next() < 0.1) rule.enabled = false;
  if (rng.next() < 0.08) {
    rule.card = { delay: { ms: 0 } };
    return rule;
  }
  const kind = rng.int(0, 3);
  if (kind === 0) rule.error = 'INTERNAL_ERROR';
  else if (kind === 1) rule.delay = { ms: 0 };
  else if (kind === 2) rule.require = { extension: true };
  else Object.assign(rule, { delay: { ms: 0 }, error: 'RATE_LIMITED' });
  return rule;
}

function generatedRequest(rng: SeededRandom): { request: ClassifiedRequest; dealer: string | undefined } {
  const card = rng.next() < 0.1;
  const headers: Record<string, string> = {};
  if (rng.next() < 0.6) headers['x-lane'] = rng.pick(['a', 'b', 'c', 'ab']);
  if (rng.next() < 0.5) headers['x-team'] = rng.pick(['a', 'b']);
  if (rng.next() < 0.4) headers['a2a-extensions'] = EXTENSION;
  const data: Record<string, unknown> = { type: `${rng.pick(SKILLS)}.request` };
  if (rng.next() < 0.7) data.make = rng.pick(['Honda', 'Ford', 'Kia']);
  if (rng.next() < 0.7) data.year = rng.pick([2020, 2021, 2022, '2021']);
  const body = rng.next() < 0.9 ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: rng.pick(METHODS), params: { message: { parts: [{ data }] } } }) : 'not json';
  const request = classifyRequest({
    method: card ? 'GET' : 'POST',
    url: card ? '/.well-known/agent-card.json' : rng.pick(['/a2a', '/a2a', '/other?x=1']),
    headers,
    clientIp: '127.0.0.1',
    body: card ? undefined : Buffer.from(body),
  });
  return { request, dealer: rng.next() < 0.5 ? undefined : rng.pick(DEALERS) };
}

function scenarioOf(rng: SeededRandom, count: number): Rule[] {
  return Array.from({ length: count }, (_, i) => generatedRule(rng, i)) as unknown as Rule[];
}

function loaded(rules: Rule[]) {
  const result = loadScenarioText(JSON.stringify({ scenario: 'generated', seed: 1, rules }), 'generated.json');
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.scenario;
}

const isCard = (r: ClassifiedRequest) => r.httpMethod === 'GET' && isAgentCardPath(r.path);

t.test('the index offers exactly the rules whose match holds, in scenario order', async (t) => {
  const rng = new SeededRandom(41);
  let compared = 0;
  let nonEmpty = 0;
  for (let s = 0; s < 60; s++) {
    const rules = loaded(scenarioOf(rng, rng.int(1, 40))).rules ?? [];
    const compiled = rules.map((def) => {
      const match: CompiledMatch = compileMatch(def.match);
      if (def.card !== undefined) match.cardOnly = true;
      return { id: def.id, match };
    });
    const index = new RuleIndex(compiled);
    for (let q = 0; q < 80; q++) {
      const { request, dealer } = generatedRequest(rng);
      const card = isCard(request);
      const viaIndex = index
        .candidates(request, dealer, card)
        .filter((r) => predicatesHold(r.match.predicates, request, EXTENSION))
        .map((r) => r.id);
      const plain = compiled.filter((r) => matchHolds(r.match, request, EXTENSION, dealer, card)).map((r) => r.id);
      if (viaIndex.join() !== plain.join()) {
        t.same(
          viaIndex,
          plain,
          `scenario ${s}, request ${q}: ${JSON.stringify({ dealer, card, path: request.path, headers: request.headers, body: request.body })}`,
        );
        return;
      }
      compared++;
      if (plain.length > 0) nonEmpty++;
    }
  }
  t.equal(compared, 60 * 80, 'every generated request gave the same rules in the same order');
  t.ok(nonEmpty > compared / 4, `many requests matched some rule (${nonEmpty} of ${compared}), so the comparison is not of empty lists`);
});

t.test("the engine's decisions follow the plain walk: every matching rule that fires contributes, the first terminal ends", async (t) => {
  const rng = new SeededRandom(4141);
  let decided = 0;
  let terminals = 0;
  for (let s = 0; s < 40; s++) {
    const rules = scenarioOf(rng, rng.int(1, 30));
    const scenario = loaded(rules);
    const compiled = (scenario.rules ?? []).map((def) => {
      const match = compileMatch(def.match);
      if (def.card !== undefined) match.cardOnly = true;
      return { def, match };
    });
    const engine = createEngine(scenario, { seed: 1 });
    for (let q = 0; q < 60; q++) {
      const { request, dealer } = generatedRequest(rng);
      const card = isCard(request);
      const decision = engine.decide({ request, profile: '1.3', extensionUri: EXTENSION, dealer });
      // The plain walk, rule by rule in scenario order.
      const matched: string[] = [];
      const fired: string[] = [];
      const effects: string[] = [];
      let terminal: string | undefined;
      for (const { def, match } of compiled) {
        if (def.enabled === false || !matchHolds(match, request, EXTENSION, dealer, card)) continue;
        matched.push(def.id);
        const answers = def.error !== undefined || (def.require !== undefined && !request.extensions.includes(EXTENSION));
        const modifiers = [def.delay && 'delay', def.card && 'card'].filter((e): e is string => !!e);
        if (!answers && modifiers.length === 0) continue;
        fired.push(def.id);
        for (const m of modifiers) effects.push(`${def.id}:${m}`);
        if (answers) {
          effects.push(`${def.id}:${def.error !== undefined ? 'error' : 'require'}`);
          terminal = def.id;
          break;
        }
      }
      const got = {
        matched: decision.matched,
        fired: decision.fired,
        effects: decision.applied.map((a) => `${a.rule}:${a.effect}`),
        terminal: decision.terminal?.ruleId,
      };
      const want = { matched, fired, effects, terminal };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        t.same(got, want, `scenario ${s}, request ${q}`);
        return;
      }
      decided++;
      if (terminal) terminals++;
    }
  }
  t.equal(decided, 40 * 60, "every decision was the plain walk's: matched, fired, effects in order, the terminal rule");
  t.ok(terminals > decided / 5, `many decisions ended at a terminal rule (${terminals} of ${decided})`);
});

t.test('non-matching rules are never visited: a request meets only the rules its shape and values can match', async (t) => {
  const rules = [
    { id: 'm', match: { method: 'NoSuch' }, error: 'INTERNAL_ERROR' },
    { id: 's', match: { skill: 'no.such' }, error: 'INTERNAL_ERROR' },
    { id: 'h', match: { headers: { 'x-lane': 'lane-1' } }, error: 'INTERNAL_ERROR' },
    { id: 'b', match: { body: [{ pointer: MAKE, equals: 'Make1' }] }, error: 'INTERNAL_ERROR' },
    { id: 'd', match: { dealer: 'd9' }, error: 'INTERNAL_ERROR' },
    { id: 'c', card: { delay: { ms: 0 } } },
  ] as Rule[];
  const compiled = (loaded(rules).rules ?? []).map((def) => {
    const match = compileMatch(def.match);
    if (def.card !== undefined) match.cardOnly = true;
    return { id: def.id, match };
  });
  const index = new RuleIndex(compiled);
  const request = classifyRequest({
    method: 'POST',
    url: '/a2a',
    headers: { 'x-lane': 'lane-2' },
    clientIp: '1',
    body: Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { parts: [{ data: { type: 'inventory.search.request', make: 'Honda' } }] } },
      }),
    ),
  });
  t.same(index.candidates(request, 'd1', false), [], 'no rule is a candidate');
  t.equal(index.candidates(request, 'd1', false), index.candidates(request, 'd1', false), 'the same list each time: nothing is allocated per request');
  t.same(
    index.candidates(request, 'd9', false).map((r) => r.id),
    ['d'],
    'the dealer rule meets its dealer',
  );
  t.same(
    index.candidates(request, undefined, true).map((r) => r.id),
    ['c'],
    'the card rule meets card requests',
  );
});
