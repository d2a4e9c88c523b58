// One record of what was applied: the journal's `faults` and the fault metrics come from the
// effects that really acted, on the normal and the header-forced path alike; a fault that
// max_active_faults refused is counted as overflow.
import t from 'tap';
import { adminCall, callSkill, startTestRuntime } from './control-fixture.js';
import { request, skillRequest } from '../helpers/servers.js';

const metricsOf = async (rt: Parameters<typeof adminCall>[0]) => (await adminCall(rt, 'GET', '/metrics')).body.toString('utf8');

t.test("a rate limit that did not refuse is not a fault; its rule's delay is", async (t) => {
  const rt = await startTestRuntime(t, {
    scenario: 'rules:\n  - id: capped\n    rate_limit: { limit: 1, window_ms: 60000 }\n    delay: { ms: 1, distribution: fixed }\n',
  });
  t.ok(JSON.parse((await callSkill(rt.url, 'inventory.search')).body.toString()).result, 'the first request is admitted');
  const [admitted] = rt.journal.entries();
  t.same(admitted!.fired, ['capped']);
  t.same(admitted!.faults, [{ rule: 'capped', effect: 'delay' }]);
  let text = await metricsOf(rt);
  t.match(text, /aap_chaos_faults_injected_total\{rule="capped",effect="delay"\} 1/);
  t.notMatch(text, /effect="rate_limit"/, 'no rate-limit fault counted for a request it let through');
  t.ok(JSON.parse((await callSkill(rt.url, 'inventory.search')).body.toString()).error, 'the second is refused');
  t.same(rt.journal.entries()[1]!.faults, [
    { rule: 'capped', effect: 'delay' },
    { rule: 'capped', effect: 'rate_limit' },
  ]);
  text = await metricsOf(rt);
  t.match(text, /aap_chaos_faults_injected_total\{rule="capped",effect="rate_limit"\} 1/);
  t.match(text, /aap_chaos_faults_injected_total\{rule="capped",effect="delay"\} 2/);
});

t.test('a request no effect acted on has no faults', async (t) => {
  const rt = await startTestRuntime(t, { scenario: 'rules:\n  - { id: other, match: { skill: lead.submit }, error: INTERNAL_ERROR }\n' });
  await callSkill(rt.url, 'inventory.search');
  t.equal(rt.journal.entries()[0]!.faults, undefined);
});

t.test('header-forced faults are recorded by the same path', async (t) => {
  const rt = await startTestRuntime(t, {
    allowHeaderFaults: true,
    scenario: 'rules:\n  - id: slow-fail\n    match: { skill: nothing.here }\n    delay: { ms: 1, distribution: fixed }\n    error: VEHICLE_UNAVAILABLE\n',
  });
  const forced = (value: string) =>
    request(`${rt.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-aap-chaos': value }, body: skillRequest('inventory.search') });
  await forced('slow-fail');
  await forced('IDEMPOTENCY_CONFLICT');
  const [byRule, byCode] = rt.journal.entries();
  t.same(byRule!.faults, [
    { rule: 'slow-fail', effect: 'delay' },
    { rule: 'slow-fail', effect: 'error' },
  ]);
  t.same(byRule!.effects, ['delay 1 ms', 'VEHICLE_UNAVAILABLE']);
  t.same(byCode!.faults, [{ rule: 'header:IDEMPOTENCY_CONFLICT', effect: 'error' }]);
  const text = await metricsOf(rt);
  t.match(text, /aap_chaos_faults_injected_total\{rule="slow-fail",effect="delay"\} 1/);
  t.match(text, /aap_chaos_faults_injected_total\{rule="header:IDEMPOTENCY_CONFLICT",effect="error"\} 1/);
});

t.test('max_active_faults: a refused fault counts as overflow, by rule', async (t) => {
  const rt = await startTestRuntime(t, { scenario: 'max_active_faults: 1\nrules:\n  - { id: slow, delay: { ms: 300, distribution: fixed } }\n' });
  let text = await metricsOf(rt);
  t.match(text, /# TYPE aap_chaos_faults_overflow_total counter/);
  t.notMatch(text, /aap_chaos_faults_overflow_total\{/, 'nothing refused yet');
  await Promise.all([callSkill(rt.url, 'inventory.search', 1), callSkill(rt.url, 'inventory.search', 2)]);
  const entries = rt.journal.entries();
  t.equal(entries.filter((e) => e.faults).length, 1, 'one request got the fault');
  text = await metricsOf(rt);
  t.match(text, /aap_chaos_faults_overflow_total\{rule="slow"\} 1/);
  t.match(text, /aap_chaos_faults_injected_total\{rule="slow",effect="delay"\} 1/);
});

t.test('requests and faults are tallied per label set and reach prom-client only when /metrics is read', async (t) => {
  const { Counter } = await import('prom-client');
  // A counter takes its increment function when it is made: the spy goes in before the runtime starts.
  const proto = Counter.prototype as unknown as { incWithoutExemplar: (...args: unknown[]) => void };
  const original = proto.incWithoutExemplar;
  const calls = new Map<string, number>();
  proto.incWithoutExemplar = function (this: { name: string }, ...args: unknown[]) {
    calls.set(this.name, (calls.get(this.name) ?? 0) + 1);
    return original.apply(this, args);
  };
  t.teardown(() => {
    proto.incWithoutExemplar = original;
  });
  const rt = await startTestRuntime(t, { scenario: 'rules:\n  - { id: boom, match: { skill: inventory.search }, error: INTERNAL_ERROR }\n' });
  for (let i = 0; i < 5; i++) await callSkill(rt.url, 'inventory.search');
  await callSkill(rt.url, 'dealer.information');
  t.equal(calls.get('aap_chaos_requests_total'), undefined, 'no prom-client increment per request');
  t.equal(calls.get('aap_chaos_faults_injected_total'), undefined, 'nor per fault');
  let text = await metricsOf(rt);
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="inventory.search",outcome="injected"\} 5/);
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="dealer.information",outcome="dealer"\} 1/);
  t.match(text, /aap_chaos_faults_injected_total\{rule="boom",effect="error"\} 5/);
  const labelSets = text.split('\n').filter((line) => line.startsWith('aap_chaos_requests_total{')).length;
  t.equal(calls.get('aap_chaos_requests_total'), labelSets, 'one increment per label set at the scrape');
  await callSkill(rt.url, 'inventory.search');
  text = await metricsOf(rt);
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="inventory.search",outcome="injected"\} 6/, 'the next scrape adds what came since');
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="dealer.information",outcome="dealer"\} 1/, 'an unchanged set stays');
  t.equal(calls.get('aap_chaos_requests_total'), labelSets + 1, 'only the set that changed is handed over again');
});
