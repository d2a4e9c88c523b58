import t from 'tap';
import { sendRaw } from '../helpers/raw-socket.js';
import { adminCall, callSkill, startTestRuntime, TEST_SCENARIO } from './control-fixture.js';

t.test('GET /status names the scenario and counts each rule', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const { status, json } = await adminCall(rt, 'GET', '/status');
  t.equal(status, 200);
  t.equal(json.scenario, 'control-test');
  t.equal(json.seed, 7);
  t.equal(json.mock_dealer, true);
  t.match(json.version, /^\d+\.\d+\.\d+/);
  t.equal(json.target, rt.proxy.forwarder.origin.replace(/\/$/, ''));
  const throttle = json.rules.find((r: { id: string }) => r.id === 'throttle-search');
  t.match(throttle, { enabled: true, matched: 1, fired: 1 });
  t.equal(json.active_faults, 0);
  t.equal(json.journal.entries, rt.journal.all().length);
});

t.test('GET /scenario returns the loaded definition', async (t) => {
  const rt = await startTestRuntime(t);
  const { status, json } = await adminCall(rt, 'GET', '/scenario');
  t.equal(status, 200);
  t.equal(json.scenario, 'control-test');
  t.same(
    json.rules.map((r: { id: string }) => r.id),
    ['throttle-search', 'slow-vehicle'],
  );
});

t.test('GET /scenario without a scenario is a 404 that says so', async (t) => {
  const rt = await startTestRuntime(t, { scenario: undefined });
  const { status, json } = await adminCall(rt, 'GET', '/scenario');
  t.equal(status, 404);
  t.match(json.error.message, /no scenario is loaded/);
});

t.test('PUT /scenario swaps to a YAML body, and requests follow the new rules', async (t) => {
  const rt = await startTestRuntime(t);
  const yaml = 'scenario: all-internal\nrules:\n  - id: boom\n    error: INTERNAL_ERROR\n';
  const put = await adminCall(rt, 'PUT', '/scenario', { body: yaml, contentType: 'application/yaml' });
  t.equal(put.status, 200);
  t.match(put.json, { scenario: 'all-internal', rules: [{ id: 'boom', enabled: true }] });
  const reply = await callSkill(rt.url, 'dealer.information');
  t.equal(reply.headers['x-aap-chaos-rule'], 'boom');
  t.equal(rt.journal.all().at(-1)?.error_code, 'INTERNAL_ERROR');
});

t.test('PUT /scenario accepts a JSON body', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: JSON.stringify({ scenario: 'from-json', rules: [] }) });
  t.equal(put.status, 200);
  t.equal(put.json.scenario, 'from-json');
});

t.test('PUT /scenario with {"name"} loads a built-in scenario', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: '{"name": "passthrough"}' });
  t.equal(put.status, 200);
  t.equal((await adminCall(rt, 'GET', '/status')).json.scenario, 'passthrough');
});

t.test('PUT /scenario with an unknown built-in name is a 422 naming the choices', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: '{"name": "no-such-scenario"}' });
  t.equal(put.status, 422);
  t.match(put.json.error.problems[0], /no built-in scenario named "no-such-scenario".*passthrough/);
});

t.test('PUT /scenario refuses a path given as a name', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: '{"name": "../../etc/passwd"}' });
  t.equal(put.status, 400);
  t.match(put.json.error.message, /built-in scenario/);
});

t.test('PUT /scenario with a bad scenario answers 422 with every problem and keeps the old one', async (t) => {
  const rt = await startTestRuntime(t);
  const bad = 'scenario: broken\nrules:\n  - id: a\n    error: NOT_A_CODE\n  - id: b\n    delay: { ms: -5 }\n';
  const put = await adminCall(rt, 'PUT', '/scenario', { body: bad, contentType: 'application/yaml' });
  t.equal(put.status, 422);
  t.match(put.json.error.message, /scenario rejected \(\d+ problems\); the current scenario is kept/);
  t.ok(put.json.error.problems.length >= 2, 'both rules are reported');
  t.ok(
    put.json.error.problems.some((p: string) => /^scenario text:4:\d+ +\/rules\/0\/error/.test(p)),
    'first problem located',
  );
  t.ok(
    put.json.error.problems.some((p: string) => /^scenario text:6:\d+ +\/rules\/1\/delay/.test(p)),
    'second problem located',
  );
  t.equal((await adminCall(rt, 'GET', '/status')).json.scenario, 'control-test');
});

t.test('PUT /scenario with broken JSON is a 400 naming the problem', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: '{"rules": [' });
  t.equal(put.status, 400);
  t.match(put.json.error.message, /not valid JSON/);
});

t.test('PUT /scenario with an empty body is a 400', async (t) => {
  const rt = await startTestRuntime(t);
  const put = await adminCall(rt, 'PUT', '/scenario', { body: '', contentType: 'application/yaml' });
  t.equal(put.status, 400);
  t.match(put.json.error.message, /empty body/);
});

t.test('PATCH /rules/:id turns a rule off and on live', async (t) => {
  const rt = await startTestRuntime(t);
  const off = await adminCall(rt, 'PATCH', '/rules/throttle-search', { body: '{"enabled": false}' });
  t.equal(off.status, 200);
  t.match(off.json, { id: 'throttle-search', enabled: false });
  const passed = await callSkill(rt.url, 'inventory.search', 'a');
  t.equal(passed.headers['x-aap-chaos-rule'], undefined, 'the disabled rule does not answer');

  const on = await adminCall(rt, 'PATCH', '/rules/throttle-search', { body: '{"enabled": true}' });
  t.equal(on.json.enabled, true);
  const throttled = await callSkill(rt.url, 'inventory.search', 'b');
  t.equal(throttled.headers['x-aap-chaos-rule'], 'throttle-search');
});

t.test('PATCH /rules/:id with an unknown rule or a bad body', async (t) => {
  const rt = await startTestRuntime(t);
  const unknown = await adminCall(rt, 'PATCH', '/rules/nope', { body: '{"enabled": false}' });
  t.equal(unknown.status, 404);
  t.match(unknown.json.error.message, /no rule "nope".*throttle-search, slow-vehicle/);
  const bad = await adminCall(rt, 'PATCH', '/rules/throttle-search', { body: '{"enabled": "no"}' });
  t.equal(bad.status, 400);
  t.match(bad.json.error.message, /"enabled": true/);
});

t.test('PATCH /rules/%zz (bad percent-encoding) is a 400 that says why, not a 500', async (t) => {
  const rt = await startTestRuntime(t);
  for (const raw of ['%zz', 'a%4', '%C3%28']) {
    const { status, json } = await adminCall(rt, 'PATCH', `/rules/${raw}`, { body: '{"enabled": false}' });
    t.equal(status, 400, raw);
    t.match(json.error.message, `PATCH /rules/${raw}: bad percent-encoding`);
  }
  t.equal((await adminCall(rt, 'PATCH', '/rules/throttle%2Dsearch', { body: '{"enabled": false}' })).status, 200, 'good encoding still decodes');
});

t.test('POST /reset clears rule counters and the journal ring', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  t.equal(rt.journal.all().length, 1);
  const reset = await adminCall(rt, 'POST', '/reset');
  t.equal(reset.status, 200);
  const status = (await adminCall(rt, 'GET', '/status')).json;
  t.match(status.rules[0], { id: 'throttle-search', matched: 0, fired: 0 });
  t.equal(status.journal.entries, 0);
});

t.test('GET /journal returns JSON lines, after a cursor and up to a limit', async (t) => {
  const rt = await startTestRuntime(t);
  for (const id of ['j1', 'j2', 'j3']) await callSkill(rt.url, 'inventory.search', id);
  const all = await adminCall(rt, 'GET', '/journal');
  t.equal(all.status, 200);
  t.match(all.headers['content-type'], /application\/x-ndjson/);
  const lines = all.body
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    lines.map((e) => e.rpc_id),
    ['j1', 'j2', 'j3'],
  );
  t.match(lines[0], {
    skill: 'inventory.search',
    fired: ['throttle-search'],
    error_code: 'RATE_LIMITED',
    retry_after_ms: 1500,
    status: 200,
    source: 'injected',
  });

  const after = await adminCall(rt, 'GET', `/journal?since=${lines[0].id}&limit=1`);
  const rest = after.body
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    rest.map((e) => e.rpc_id),
    ['j2'],
  );
});

t.test('GET /journal rejects a malformed cursor or limit', async (t) => {
  const rt = await startTestRuntime(t);
  const since = await adminCall(rt, 'GET', '/journal?since=yesterday');
  t.equal(since.status, 400);
  t.match(since.json.error.message, /ULID/);
  const limit = await adminCall(rt, 'GET', '/journal?limit=0');
  t.equal(limit.status, 400);
  t.match(limit.json.error.message, /limit/);
});

t.test('GET /journal filters by skill, outcome, client and rule fired, and gives the newest N with last', async (t) => {
  const rt = await startTestRuntime(t);
  for (const id of ['s1', 's2', 's3']) await callSkill(rt.url, 'inventory.search', id);
  await callSkill(rt.url, 'inventory.vehicle', 'v1', { vin: '3FMUKX5S6SF000001' });
  const ids = async (query: string) => {
    const reply = await adminCall(rt, 'GET', `/journal?${query}`);
    t.equal(reply.status, 200, query);
    return reply.body
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).rpc_id);
  };
  t.same(await ids('skill=inventory.search'), ['s1', 's2', 's3']);
  t.same(await ids('outcome=error'), ['s1', 's2', 's3'], 'the throttled searches');
  t.same(await ids('outcome=result'), ['v1']);
  t.same(await ids('rule=throttle-search&last=2'), ['s2', 's3'], 'the newest two, oldest first');
  t.same(await ids('rule=slow-vehicle'), ['v1']);
  t.same(await ids('client=127.0.0.1&skill=inventory.vehicle'), ['v1']);
  t.same(await ids('client=10.0.0.1'), []);
  t.same(await ids('last=1'), ['v1']);
  t.same(await ids('limit=3&last=1'), ['s3'], 'the newest of the first three');
  const bad = await adminCall(rt, 'GET', '/journal?outcome=maybe');
  t.equal(bad.status, 400);
  t.match(bad.json.error.message, /outcome must be one of result, error, unknown/);
  t.equal((await adminCall(rt, 'GET', '/journal?last=0')).status, 400);
  t.equal((await adminCall(rt, 'GET', `/journal?skill=${'x'.repeat(1025)}`)).status, 400);
});

t.test('GET /report grades the buyer from the journal', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const { status, json } = await adminCall(rt, 'GET', '/report');
  t.equal(status, 200);
  t.equal(json.clients.length, 1);
  t.ok(json.checks.length > 0);
  t.type(json.ok, 'boolean');
});

t.test('GET /metrics speaks Prometheus text with the project counters', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  await callSkill(rt.url, 'dealer.information');
  const { status, headers, body } = await adminCall(rt, 'GET', '/metrics');
  t.equal(status, 200);
  t.match(headers['content-type'], /text\/plain/);
  const text = body.toString('utf8');
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="inventory.search",outcome="injected"\} 1/);
  t.match(text, /aap_chaos_requests_total\{method="SendMessage",skill="dealer.information",outcome="dealer"\} 1/);
  t.match(text, /aap_chaos_faults_injected_total\{rule="throttle-search",effect="error"\} 1/);
  t.match(text, /aap_chaos_upstream_latency_seconds_count 1/);
  t.match(text, /aap_chaos_active_faults 0/);
  t.match(text, /# TYPE aap_chaos_journal_dropped_total counter/);
});

t.test('unknown routes, wrong methods and plain GET /events answer JSON errors', async (t) => {
  const rt = await startTestRuntime(t);
  const missing = await adminCall(rt, 'GET', '/nope');
  t.equal(missing.status, 404);
  t.match(missing.json.error.message, /no such endpoint: GET \/nope/);
  const wrong = await adminCall(rt, 'DELETE', '/scenario');
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.allow, 'GET, PUT');
  const events = await adminCall(rt, 'GET', '/events');
  t.equal(events.status, 426);
  t.match(events.json.error.message, /WebSocket/);
});

t.test('a plain GET /events that asked to close is closed with its 426, not kept for the keep-alive timeout', async (t) => {
  const rt = await startTestRuntime(t);
  const { host } = new URL(rt.adminUrl);
  const closing = await sendRaw(rt.adminUrl, [`GET /events HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`], 3_000);
  t.match(closing.reply, /^HTTP\/1\.1 426 [\s\S]*\r\nupgrade: websocket\r\n/i);
  t.match(closing.reply, /\r\nconnection: upgrade, close\r\n/i, 'the reply says both: upgrade to a WebSocket, and this connection closes');
  t.ok(closing.closed, `the server closed the connection (after ${closing.ms} ms; its keep-alive timeout is 5 s)`);
  const kept = await sendRaw(rt.adminUrl, [`GET /events HTTP/1.1\r\nhost: ${host}\r\n\r\n`], 300);
  t.match(kept.reply, /\r\nconnection: upgrade\r\n/i, 'a keep-alive request keeps its connection');
  t.notOk(kept.closed, 'and the connection stays open');
});

t.test('the scenario given at start may be YAML text, a built-in name or an object', async (t) => {
  const fromText = await startTestRuntime(t, { scenario: TEST_SCENARIO });
  t.equal(fromText.engine?.name, 'control-test');
  const fromName = await startTestRuntime(t, { scenario: 'passthrough' });
  t.equal(fromName.engine?.name, 'passthrough');
  const fromObject = await startTestRuntime(t, { scenario: { scenario: 'inline', rules: [{ id: 'x', error: 'INTERNAL_ERROR' }] } });
  t.equal(fromObject.engine?.name, 'inline');
});

t.test('a bad scenario at start is refused with every problem, formatted as the CLI prints them', async (t) => {
  await t.rejects(startTestRuntime(t, { scenario: 'rules:\n  - id: a\n    error: NOPE\n' }), {
    name: 'ScenarioRejectedError',
    problems: [/^scenario text:3:\d+ +\/rules\/0\/error/],
  });
});
