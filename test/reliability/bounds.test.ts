// Everything the proxy keeps that grows with traffic is bounded, and reaching a bound is counted in
// aap_chaos_bound_reached_total{bound="…"} while the proxy keeps working (docs/reliability.md,
// "Bounded for days"): through the proxy for the journal ring and the session table, and for each
// other table, ring and cache on its own, filled past its bound.
import t from 'tap';
import { boundCounts, BOUNDS, type BoundName } from '../../src/common/bound-counts.js';
import { ChaosMetrics, MAX_LABEL_SETS } from '../../src/control/metrics.js';
import { EventHub } from '../../src/control/events.js';
import { CardHistory } from '../../src/effects/card.js';
import { SessionTable } from '../../src/engine/sessions.js';
import { RuleIndex } from '../../src/engine/match.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { BoundedMap } from '../../src/mock/bounded-map.js';
import { LiveGrader } from '../../src/observe/live-grader.js';
import type { ClassifiedRequest } from '../../src/protocol/classify.js';
import { AuditLog } from '../../src/staging/audit.js';
import { GuardrailWatch } from '../../src/staging/guardrails.js';
import { createEngine } from '../../src/engine/engine.js';
import { classifyRequest } from '../../src/protocol/classify.js';
import { loadScenarioText } from '../../src/scenario/load.js';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';
import { request, skillRequest } from '../helpers/servers.js';

/** How many times `bound` was counted while `work` ran. */
async function counted(bound: BoundName, work: () => unknown): Promise<number> {
  const before = boundCounts()[bound];
  await work();
  return boundCounts()[bound] - before;
}

const line = (n: number, extra: Partial<JournalEntry> = {}): JournalEntry =>
  ({
    id: `01J${String(n).padStart(23, '0')}`,
    t: n,
    client: `c${n}`,
    method: 'SendMessage',
    skill: 'inventory.search',
    status: 200,
    source: 'dealer',
    ...extra,
  }) as JournalEntry;

t.test('through the proxy: a journal ring and a session table past their bounds are counted in /metrics, and requests are still answered', async (t) => {
  const runtime = await startTestRuntime(t, { journalRing: 5 });
  const sessions = 1_000 + 20;
  let answered = 0;
  let next = 0;
  const send = async () => {
    while (next < sessions) {
      const i = next++;
      const reply = await request(`${runtime.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-aap-chaos-session': `s-${i}` },
        body: skillRequest('inventory.vehicle', { vin: '3FMUKX5S6SF000001' }, i),
      });
      if (reply.status === 200) answered++;
    }
  };
  const forgotten = await counted('sessions', () => Promise.all(Array.from({ length: 8 }, send)));
  t.equal(answered, sessions, 'every request answered');
  t.ok(forgotten >= 20, `${forgotten} sessions forgotten past 1 000`);
  t.equal(runtime.journal.size, 5, 'the ring holds its bound');
  t.equal((await callSkill(runtime.url, 'inventory.vehicle')).status, 200, 'the proxy keeps working');
  const metrics = await runtime.metrics.text();
  for (const bound of BOUNDS) t.match(metrics, new RegExp(`aap_chaos_bound_reached_total\\{bound="${bound}"\\} \\d+`), `${bound} is a series`);
  t.match(metrics, /aap_chaos_bound_reached_total\{bound="journal_ring"\} [1-9]\d*/);
  t.match(metrics, /aap_chaos_bound_reached_total\{bound="sessions"\} [1-9]\d*/);
});

t.test('metric label sets from scenarios (rule ids) stop at the bound: new ones count as "_other"', async (t) => {
  const metrics = new ChaosMetrics(() => undefined);
  const rules = MAX_LABEL_SETS + 50;
  const over = await counted('metric_label_sets', () => {
    for (let n = 0; n < rules; n++) metrics.onRequestDone(line(n, { faults: [{ rule: `rule-${n}`, effect: 'error' }] } as Partial<JournalEntry>));
    for (let n = 0; n < 10; n++) metrics.faultOverflowed(`swapped-rule-${n}`);
  });
  t.equal(over, 50, 'each fault past the bound is counted');
  const text = await metrics.text();
  const series = text.split('\n').filter((l) => l.startsWith('aap_chaos_faults_injected_total{'));
  t.equal(series.length, MAX_LABEL_SETS + 1, 'the bound, plus one "_other" series');
  t.match(text, /aap_chaos_faults_injected_total\{rule="_other",effect="_other"\} 50/);
  t.match(text, /aap_chaos_faults_overflow_total\{rule="swapped-rule-9"\} 1/, 'room left in another metric');
});

t.test('each table, ring and cache forgets past its bound and counts it', async (t) => {
  t.equal(
    await counted('card_history', () => {
      const history = new CardHistory();
      for (let n = 0; n < 70; n++) history.record({ name: `card ${n}` }, n);
    }),
    6,
    'card history: 64 kept',
  );
  t.equal(
    await counted('mock_store', () => {
      const store = new BoundedMap<number, number>(2);
      for (let n = 0; n < 5; n++) store.set(n, n);
    }),
    3,
    'the mock dealer stores',
  );
  t.equal(
    await counted('sessions', () => {
      const table = new SessionTable(1, { max: 3, idleMs: 60_000 });
      for (let n = 0; n < 5; n++) table.get(`s${n}`);
    }),
    2,
    'sessions',
  );
  t.equal(
    await counted('audit_ring', async () => {
      const log = new AuditLog({ ring: 2 });
      for (let n = 0; n < 5; n++)
        await log.record({ action: 'reset', target: 'fleet', scenario_before: null, scenario_after: null, remote: null, token: null });
      t.equal((await log.recent()).length, 2);
    }),
    3,
    'the audit ring',
  );
  t.equal(
    await counted('rule_index_pairs', () => {
      const index = new RuleIndex<{ match: { methods?: string[] } } & never>([]);
      for (let n = 0; n < 1_030; n++) index.candidates({ rpcMethod: `Method${n}`, skill: undefined } as unknown as ClassifiedRequest, undefined, false);
    }),
    6,
    'rule index: 1 024 (dealer, method, skill, card) groups',
  );
  const grader = new LiveGrader(
    () => {},
    () => undefined,
    { maxClients: 2 },
  );
  t.teardown(() => grader.close());
  t.equal(
    await counted('observe_clients', () => {
      for (let n = 0; n < 5; n++) grader.onRequestDone(line(n));
    }),
    3,
    'live grading: clients',
  );
  t.equal(
    await counted('guardrail_window', () => {
      const watch = new GuardrailWatch(
        [{ name: 'dups', metric: 'duplicate_leads', max: 1e9, window_s: 3600 }],
        () => {},
        () => 1_000,
      );
      for (let n = 0; n < 10_005; n++) watch.onRequestDone(line(n, { skill: 'lead.submit' }));
    }),
    5,
    'guardrail windows: 10 000 lines',
  );
  const loaded = loadScenarioText('rules:\n  - { id: per-key, key: "header:x-api-key", rate_limit: { limit: 1, window_ms: 60000 } }\n', 'k.yaml');
  if (!loaded.ok) throw new Error('invalid');
  const engine = createEngine(loaded.scenario, { seed: 1 });
  const decide = (key: string) =>
    engine.decide({
      request: classifyRequest({
        method: 'POST',
        url: '/a2a',
        headers: { 'x-api-key': key },
        clientIp: '1',
        body: Buffer.from(skillRequest('inventory.search')),
      }),
      profile: '1.3',
      extensionUri: 'u',
    });
  t.equal(
    await counted('rule_keys', () => {
      for (let n = 0; n < 10_003; n++) decide(`key-${n}`);
    }),
    3,
    'per-key rule state: 10 000 keys per rule',
  );
  t.match(decide('key-10002').sentences.join(), /RATE_LIMITED/, 'a key still kept is still limited');
  t.notMatch(decide('key-0').sentences.join(), /RATE_LIMITED/, 'a forgotten key starts afresh');
  const hub = new EventHub(1024, () => {}, { maxClients: 0 });
  t.teardown(() => hub.close());
  t.equal(await counted('events_clients', () => t.ok(hub.refusal())), 1, '/events clients');
});
