// match, key and when, through real sockets; and the seed.
import t from 'tap';
import { harness, type Harness } from '../helpers/chaos-harness.js';
import { request, skillRequest } from '../helpers/servers.js';
import { loadScenarioText } from '../../src/scenario/load.js';
import { createEngine } from '../../src/engine/engine.js';
import { classifyRequest } from '../../src/protocol/classify.js';

const faulted = async (h: Harness, skill: string, data: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  !!h.json(await h.call(skill, data, { headers })).error;

t.test('match: skill (string and list), method, path, headers, body, extension', async (t) => {
  const h = await harness(
    t,
    `rules:
  - { id: by-skill, match: { skill: [inventory.vehicle, lead.submit] }, error: INTERNAL_ERROR }
  - { id: by-header, match: { headers: { x-buyer: team-a } }, error: INTERNAL_ERROR }
  - { id: by-regex, match: { headers: { x-trace: { regex: "^z+$" } } }, error: INTERNAL_ERROR }
  - { id: by-absent, match: { skill: inventory.facets, headers: { x-key: { absent: true } } }, error: INTERNAL_ERROR }
  - id: by-body
    match:
      skill: inventory.search
      body:
        - { pointer: /params/message/parts/0/data/filters/make/0, equals: Honda }
        - { pointer: /params/message/parts/0/data/filters/year_min, in: [2020, 2021] }
        - { pointer: /params/message/parts/0/data/query, regex: "^civic" }
        - { pointer: /params/message/parts/0/data/pagination, exists: false }
    error: INTERNAL_ERROR
  - { id: by-ext, match: { skill: dealer.information, extension: missing }, error: INTERNAL_ERROR }
`,
  );
  t.ok(await faulted(h, 'inventory.vehicle'));
  t.ok(await faulted(h, 'lead.submit'));
  t.notOk(await faulted(h, 'inventory.search'), 'other skills pass');
  t.ok(await faulted(h, 'inventory.search', {}, { 'x-buyer': 'team-a' }), 'exact header');
  t.notOk(await faulted(h, 'inventory.search', {}, { 'x-buyer': 'team-b' }));
  t.ok(await faulted(h, 'inventory.search', {}, { 'x-trace': 'zzz' }), 'header regex');
  t.ok(await faulted(h, 'inventory.facets'), 'absent header');
  t.notOk(await faulted(h, 'inventory.facets', {}, { 'x-key': 'k' }));
  t.ok(await faulted(h, 'inventory.search', { filters: { make: ['Honda'], year_min: 2021 }, query: 'civic ex' }), 'all body tests hold');
  t.notOk(await faulted(h, 'inventory.search', { filters: { make: ['Honda'], year_min: 2019 }, query: 'civic ex' }), 'in fails');
  t.notOk(
    await faulted(h, 'inventory.search', { filters: { make: ['Honda'], year_min: 2021 }, query: 'civic', pagination: { limit: 1 } }),
    'exists: false fails',
  );
  t.ok(await faulted(h, 'dealer.information'), 'extension missing');
  t.notOk(await faulted(h, 'dealer.information', {}, { 'a2a-extensions': 'https://autoagentprotocol.org/extensions/aap/v1.3' }), 'extension present');
});

t.test('match: method and path', async (t) => {
  const h = await harness(t, `rules:\n  - { id: m, match: { method: [GetTask], path: /a2a }, a2a_error: TASK_NOT_FOUND }\n`);
  const body = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} });
  t.equal(JSON.parse((await request(h.proxy.url + '/a2a', { body: body('GetTask') })).body.toString()).error.code, -32001);
  t.notOk(JSON.parse((await request(h.proxy.url + '/a2a', { body: body('SendMessage') })).body.toString()).error);
  t.notOk(JSON.parse((await request(h.proxy.url + '/other', { body: body('GetTask') })).body.toString()).error, 'other path');
});

t.test('when: after, every, times', async (t) => {
  const h = await harness(t, `rules:\n  - { id: r, when: { after: 2, every: 2, times: 2 }, error: INTERNAL_ERROR }\n`);
  const pattern: boolean[] = [];
  for (let i = 0; i < 10; i++) pattern.push(await faulted(h, 'inventory.search'));
  // seen 1,2 let through (after); then every 2nd of the rest (4, 6), at most twice.
  t.same(pattern, [false, false, false, true, false, true, false, false, false, false]);
});

t.test('when: from_s and until_s measure time since the scenario was loaded', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: early, when: { until_s: 0.5 }, error: INTERNAL_ERROR }\n  - { id: late, when: { from_s: 0.6 }, error: RATE_LIMITED, retry_after_ms: 5 }\n`,
  );
  const first = h.json(await h.call('inventory.search'));
  t.equal(first.error.data.code, 'INTERNAL_ERROR', 'inside the early window');
  // The windows are measured in time since load: the only way to reach the second one is to wait.
  await new Promise((r) => setTimeout(r, 700));
  const later = h.json(await h.call('inventory.search'));
  t.equal(later.error.data.code, 'RATE_LIMITED', 'past until_s, from from_s on');
});

t.test('when: probability draws from the seed; the same seed and traffic give the same decisions', async (t) => {
  const yaml = `seed: 7\nrules:\n  - { id: coin, when: { probability: 0.5 }, error: INTERNAL_ERROR }\n  - { id: jitter, delay: { ms: 5, jitter_ms: 5 } }\n`;
  const runOnce = async () => {
    const h = await harness(t, yaml, { engine: { seed: undefined } });
    const out: string[] = [];
    for (let i = 0; i < 24; i++) {
      await h.call('inventory.search');
      out.push(h.journal.at(-1)!.effects.join('|'));
    }
    return out;
  };
  const a = await runOnce();
  const b = await runOnce();
  t.same(a, b, 'identical decisions, including drawn delays');
  const fired = a.filter((s) => s.includes('INTERNAL_ERROR')).length;
  t.ok(fired > 3 && fired < 21, `about half fired (${fired}/24)`);
  const loaded = loadScenarioText(yaml, 'x.yaml');
  if (!loaded.ok) throw new Error('invalid');
  const decide = (seed: number) => {
    const engine = createEngine(loaded.scenario, { seed });
    const req = classifyRequest({ method: 'POST', url: '/a2a', headers: {}, clientIp: '1', body: Buffer.from(skillRequest('inventory.search')) });
    return Array.from({ length: 24 }, () => engine.decide({ request: req, profile: '1.3', extensionUri: 'u' }).sentences.join('|'));
  };
  t.notSame(decide(7), decide(8), '--seed overrides and changes the decisions');
  t.same(decide(7), a, 'the file seed and --seed 7 agree');
});

t.test('key: ip, header:NAME and skill keep separate counters', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: per-header, match: { skill: inventory.search }, key: "header:x-api-key", rate_limit: { limit: 1, window_ms: 60000 } }\n  - { id: per-skill, match: { skill: [inventory.facets, inventory.vehicle] }, key: skill, rate_limit: { limit: 1, window_ms: 60000 } }\n`,
  );
  t.notOk(await faulted(h, 'inventory.search', {}, { 'x-api-key': 'a' }));
  t.notOk(await faulted(h, 'inventory.search', {}, { 'x-api-key': 'b' }), 'another key has its own window');
  t.ok(await faulted(h, 'inventory.search', {}, { 'x-api-key': 'a' }), 'the same key is limited');
  t.notOk(await faulted(h, 'inventory.facets'));
  t.notOk(await faulted(h, 'inventory.vehicle'), 'another skill has its own window');
  t.ok(await faulted(h, 'inventory.facets'));
});

t.test('disabled rules never fire; counters per rule', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: off, enabled: false, error: INTERNAL_ERROR }\n  - { id: on, match: { skill: lead.submit }, error: INTERNAL_ERROR }\n`,
  );
  t.notOk(await faulted(h, 'inventory.search'));
  t.ok(await faulted(h, 'lead.submit'));
  const engine = h.proxy.proxy.decider as ReturnType<typeof createEngine>;
  t.match(engine.rules(), [
    { id: 'off', enabled: false, matched: 0, fired: 0 },
    { id: 'on', matched: 1, fired: 1 },
  ]);
  t.ok(engine.setEnabled('off', true));
  t.ok(await faulted(h, 'inventory.search'), 'switched on live');
});

t.test('the rule index keeps scenario order across exact-value lookups and plain rules', async (t) => {
  const yaml = `rules:
  - { id: h1, match: { headers: { x-lane: a } }, delay: { ms: 0, distribution: fixed } }
  - { id: p1, delay: { ms: 0, distribution: fixed } }
  - { id: b1, match: { body: [{ pointer: /params/message/parts/0/data/vin, equals: V1 }] }, delay: { ms: 0, distribution: fixed } }
  - { id: h2, match: { headers: { x-lane: b } }, delay: { ms: 0, distribution: fixed } }
  - { id: b2, match: { body: [{ pointer: /params/message/parts/0/data/vin, equals: V1 }, { pointer: /id, equals: 2 }] }, delay: { ms: 0, distribution: fixed } }
  - { id: last, error: INTERNAL_ERROR }
`;
  const loaded = loadScenarioText(yaml, 'order.yaml');
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const engine = createEngine(loaded.scenario, { seed: 1 });
  const fired = (headers: Record<string, string>, id: number) =>
    engine.decide({
      request: classifyRequest({
        method: 'POST',
        url: '/a2a',
        headers,
        clientIp: '1',
        body: Buffer.from(skillRequest('inventory.vehicle', { vin: 'V1' }, id)),
      }),
      profile: '1.3',
      extensionUri: 'u',
    }).fired;
  t.same(fired({ 'x-lane': 'a' }, 1), ['h1', 'p1', 'b1', 'last']);
  t.same(fired({ 'x-lane': 'b' }, 2), ['p1', 'b1', 'h2', 'b2', 'last']);
  t.same(fired({}, 3), ['p1', 'b1', 'last']);
});

t.test('a decision of terminal effects alone shares the empty plan; a modifier gets a plan of its own', async (t) => {
  const { PASS_THROUGH } = await import('../../src/engine/decision.js');
  const loaded = loadScenarioText(
    `rules:\n  - { id: boom, match: { skill: inventory.search }, error: INTERNAL_ERROR }\n  - { id: slow, match: { skill: inventory.facets }, delay: { ms: 5 } }\n  - { id: slow-too, match: { skill: inventory.facets }, delay: { ms: 7 } }\n`,
    'plan.yaml',
  );
  if (!loaded.ok) throw new Error('scenario');
  const engine = createEngine(loaded.scenario, { seed: 1 });
  const decide = (skill: string) =>
    engine.decide({
      request: classifyRequest({ method: 'POST', url: '/a2a', headers: {}, clientIp: '1', body: Buffer.from(skillRequest(skill)) }),
      profile: '1.3',
      extensionUri: 'u',
    });
  const error = decide('inventory.search');
  t.equal(error.terminal?.ruleId, 'boom');
  t.equal(error.plan, PASS_THROUGH.plan, 'no plan is made for an injected error');
  const delayed = decide('inventory.facets');
  t.not(delayed.plan, PASS_THROUGH.plan, 'modifiers write into a plan of their own');
  t.equal(delayed.plan.delayMs, 12, 'both delays are in it');
  t.equal(PASS_THROUGH.plan.delayMs, 0, 'the shared empty plan is untouched');
  delayed.release();
});
