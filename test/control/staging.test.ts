// Shared-staging controls on one process (no Redis): a scenario or a rule switch with a TTL goes
// back by itself; --max-ttl caps a TTL and gives one to every change; the safety lever acts on
// this process; a duplicate lead from the dealer trips the duplicate_leads guardrail; guardrails
// are validated with file:line and JSON pointer like every scenario key.
import t from 'tap';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { waitFor } from '../helpers/servers.js';
import { adminCall, callSkill, startTestRuntime, TEST_SCENARIO } from './control-fixture.js';

const other = JSON.stringify({ scenario: 'other', rules: [{ id: 'all-fail', error: 'INTERNAL_ERROR' }] });

t.test('PUT /scenario?ttl= reverts to pass-through by itself, with an audit entry', async (t) => {
  const runtime = await startTestRuntime(t, { scenario: undefined });
  const put = await adminCall(runtime, 'PUT', '/scenario?ttl=400ms', { body: other });
  t.equal(put.status, 200);
  t.match(put.json.ttl, { target: 'scenario', reverts_to: 'pass-through', remaining_s: 1 });
  t.equal(JSON.parse((await callSkill(runtime.url, 'inventory.search')).body.toString()).error.code, -32603, 'the scenario applies');
  await waitFor(() => runtime.status().scenario === null, 5_000);
  t.same(runtime.status().ttl, [], 'no time left to show');
  t.notOk(JSON.parse((await callSkill(runtime.url, 'inventory.search')).body.toString()).error, 'requests pass through again');
  const audit = (await adminCall(runtime, 'GET', '/audit')).body
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.match(audit, [
    { action: 'scenario-load', scenario_before: null, scenario_after: /^[0-9a-f]{64}$/, detail: 'ttl 400ms', remote: '127.0.0.1' },
    { action: 'scenario-revert', scenario_after: null, detail: 'ttl expired', remote: null, prev: audit[0].hash },
  ]);
  const bad = await adminCall(runtime, 'PUT', '/scenario?ttl=soon', { body: other });
  t.equal(bad.status, 400);
  t.match(bad.json.error.message, /^ttl: "soon" is not a duration above zero/);
});

t.test('--max-ttl: a longer TTL is refused, a change without one gets the cap', async (t) => {
  const runtime = await startTestRuntime(t, { maxTtlMs: 60_000 });
  const tooLong = await adminCall(runtime, 'PUT', '/scenario?ttl=2m', { body: other });
  t.equal(tooLong.status, 400);
  t.match(tooLong.json.error.message, 'ttl 2m is longer than --max-ttl 1m');
  t.equal(runtime.status().scenario, 'control-test', 'the scenario is kept');
  const capped = await adminCall(runtime, 'PUT', '/scenario', { body: other });
  t.equal(capped.status, 200);
  t.match(capped.json.ttl, { reverts_to: 'control-test' });
  t.ok(capped.json.ttl.remaining_s <= 60 && capped.json.ttl.remaining_s > 50, 'the cap applies');
});

t.test('PUT /rules/ID/enabled?ttl= switches a rule back by itself', async (t) => {
  const runtime = await startTestRuntime(t);
  const off = await adminCall(runtime, 'PUT', '/rules/throttle-search/enabled?ttl=300ms', { body: 'false' });
  t.equal(off.status, 200);
  t.match(off.json, { id: 'throttle-search', enabled: false, ttl: { target: 'rule:throttle-search', reverts_to: 'enabled' } });
  t.match(runtime.status().ttl, [{ target: 'rule:throttle-search' }], '/status shows the time left');
  await waitFor(() => runtime.status().rules.find((r) => r.id === 'throttle-search')!.enabled, 5_000);
  t.same(runtime.status().ttl, []);
  const actions = (await adminCall(runtime, 'GET', '/audit')).body
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).action);
  t.same(actions, ['rule-switch', 'rule-revert']);
});

t.test('without Redis the safety lever acts on this process: dry run, changes refused until released', async (t) => {
  const runtime = await startTestRuntime(t);
  t.equal(JSON.parse((await callSkill(runtime.url, 'inventory.search')).body.toString()).error.data.code, 'RATE_LIMITED');
  const pulled = await adminCall(runtime, 'PUT', '/safety-lever', { body: '{"reason":"demo"}' });
  t.equal(pulled.status, 200);
  t.match(runtime.status(), { dry_run: true, safety_lever: { pulled: true, reason: 'demo', by: '127.0.0.1' } });
  t.notOk(JSON.parse((await callSkill(runtime.url, 'inventory.search')).body.toString()).error, 'no fault while pulled');
  t.equal((await adminCall(runtime, 'PUT', '/scenario', { body: other })).status, 409);
  t.equal((await adminCall(runtime, 'PUT', '/rules/throttle-search/enabled', { body: 'false' })).status, 409);
  t.equal((await adminCall(runtime, 'DELETE', '/safety-lever')).status, 200);
  t.match(runtime.status(), { dry_run: false, safety_lever: { pulled: false } });
  t.equal(JSON.parse((await callSkill(runtime.url, 'inventory.search')).body.toString()).error.data.code, 'RATE_LIMITED', 'faults apply again');
});

t.test('a duplicate lead from the dealer breaches duplicate_leads = 0 and pulls the lever', async (t) => {
  const scenario = `scenario: leads-watched
guardrails:
  - name: no-duplicate-leads
    metric: duplicate_leads
    max: 0
rules: []
`;
  const runtime = await startTestRuntime(t, { scenario });
  const buyer = await createBuyer(runtime.url);
  const lead = {
    customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    consent: { granted_at: '2026-01-01T10:00:00Z', allowed_channels: ['email'], consent_text: 'I agree.', scope: ['lead_submission'] },
    source_agent: { name: 'test-buyer' },
    idempotency_key: 'lead-retry-1',
  };
  t.ok((await sendSkill(buyer, 'lead.submit', lead, { extensionUri: AAP_EXTENSION_URI_1_3 })).ok);
  t.notOk(runtime.status().safety_lever.pulled, 'one lead is fine');
  const again = await sendSkill(buyer, 'lead.submit', lead, { extensionUri: AAP_EXTENSION_URI_1_3 });
  t.match(again, { ok: true, data: { data: { status: 'duplicate' } } }, 'the dealer answers duplicate');
  await waitFor(() => runtime.status().safety_lever.pulled, 1_000);
  t.match(runtime.status().safety_lever, { halted_by: 'guardrail no-duplicate-leads', reason: /duplicate_leads 1 > 0/ });
  t.equal(runtime.journal.all().at(-1)!.lead_status, 'duplicate', 'the journal line records the lead status');
});

t.test('guardrails are validated like every scenario key: file:line and JSON pointer', async (t) => {
  const text = `scenario: bad-guardrails
guardrails:
  - name: success
    metric: lead_submit_success
    max: 0.9
  - name: slow
    metric: p99_latency_ms
    max: 800
  - name: success
    metric: retry_storm_ratio
    max: 2
    faults: sometimes
rules: []
`;
  const result = loadScenarioText(text, 'g.yaml');
  t.notOk(result.ok);
  const problems = result.ok ? [] : result.problems.map(formatProblem);
  t.match(problems.join('\n'), /g\.yaml:4:\d+ .*\/guardrails\/0\/metric.*needs "min"/);
  t.match(problems.join('\n'), /g\.yaml:5:\d+ .*\/guardrails\/0\/max.*judged by "min", not "max"/);
  t.match(problems.join('\n'), /g\.yaml:7:\d+ .*\/guardrails\/1\/metric.*needs "skill"/);
  t.match(problems.join('\n'), /g\.yaml:9:\d+ .*\/guardrails\/2\/name.*duplicate guardrail name "success"/);
  t.match(problems.join('\n'), /g\.yaml:12:\d+ .*\/guardrails\/2\/faults/);
  t.ok(
    loadScenarioText(
      TEST_SCENARIO.replace('rules:', 'guardrails:\n  - { name: fast, metric: p99_latency_ms, skill: inventory.search, max: 800 }\nrules:'),
      'ok.yaml',
    ).ok,
    'a good one loads',
  );
});
