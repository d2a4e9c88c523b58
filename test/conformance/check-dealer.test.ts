// --check-dealer: the proxy checks what the dealer sent, after the reply is out, without changing
// a byte; violations land in the journal, the metrics, /events and the report.
import { once } from 'node:events';
import t from 'tap';
import { WebSocket } from 'ws';
import { startRuntime } from '../../src/runtime.js';
import { runCheck } from '../../src/check/run-check.js';
import { formatReport } from '../../src/report/format.js';
import type { Report } from '../../src/report/report.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { BROKEN_DEALER_RULES, startBrokenDealer } from './broken-dealer.js';
import { startMockDealer } from '../../src/mock/index.js';

t.test('the broken dealer behind --check-dealer: exactly its rules, in journal, metrics, /events and report', async (t) => {
  const broken = await startBrokenDealer();
  t.teardown(() => broken.close());
  const rt = await startRuntime({ target: broken.url, checkDealer: true, port: 0, adminPort: 0, env: {} });
  t.teardown(() => rt.close());
  const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
  const streamed = new Set<string>();
  ws.on('message', (data) => {
    for (const v of JSON.parse(data.toString()).conformance ?? []) streamed.add(v.rule);
  });
  await once(ws, 'open');
  t.teardown(() => ws.close());

  // The buyer traffic is check's own probe, sent through the proxy.
  await runCheck({ target: rt.url, probeRateLimit: true });
  const journaled = new Set(rt.journal.all().flatMap((e) => (e.conformance ?? []).map((v) => v.rule)));
  t.same([...journaled].sort(), BROKEN_DEALER_RULES, 'the journal names exactly the broken rules');
  t.ok(
    rt.journal
      .all()
      .filter((e) => e.method !== undefined)
      .every((e) => Array.isArray(e.conformance)),
    'every JSON-RPC reply was checked',
  );

  const metrics = await (await fetch(`${rt.adminUrl}/metrics`)).text();
  for (const rule of BROKEN_DEALER_RULES)
    t.match(metrics, new RegExp(`aap_chaos_dealer_violations_total\\{rule="${rule}",severity="MUST"\\} [1-9]`), `${rule} counted`);

  const report = (await (await fetch(`${rt.adminUrl}/report`)).json()) as Report;
  t.same(
    report.dealer_conformance!.rules.map((r) => r.rule),
    BROKEN_DEALER_RULES,
    'GET /report has the dealer conformance section',
  );
  t.ok(
    report.dealer_conformance!.rules.every((r) => r.evidence.length > 0 && rt.journal.all().some((e) => e.id === r.evidence[0])),
    'each row points at a journal line',
  );
  t.match(formatReport(report), /Dealer conformance \(--check-dealer\): \d+ dealer replies checked/);

  const last = rt.journal.all().at(-1)!.id;
  await new Promise<void>((resolve) => {
    const done = () => [...journaled].every((r) => streamed.has(r)) && resolve();
    done();
    ws.on('message', done);
  });
  t.same([...streamed].sort(), BROKEN_DEALER_RULES, `/events carried the same violations (up to ${last})`);
});

t.test('the dealer bytes reach the buyer unchanged, streamed replies too; only the copy is checked', async (t) => {
  const spoiled = '{"jsonrpc":"2.0","id":"7","result":{"message":{"role":"agent","parts":[]}}}   ';
  const stream = 'data: {"jsonrpc":"2.0","id":7,"result":{"task":{"id":"t"}}}\n\ndata: {"jsonrpc":"2.0","id":8,"result":{}}\n\n';
  const up = await startUpstream((req, res, body) => {
    const sse = body.length > 0 && JSON.parse(body.toString()).method === 'SendStreamingMessage';
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    res.end(sse ? stream : spoiled);
  });
  t.teardown(() => up.close());
  const rt = await startRuntime({ target: up.url, checkDealer: true, profile: '1.3', port: 0, adminPort: 0, env: {} });
  t.teardown(() => rt.close());
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  const plain = await request(`${rt.url}/a2a`, { body: skillRequest('dealer.information', {}, 7), headers });
  t.equal(plain.body.toString(), spoiled, 'byte for byte, trailing spaces included');
  const streamed = await request(`${rt.url}/a2a`, {
    body: skillRequest('inventory.search', {}, 7).replace('"SendMessage"', '"SendStreamingMessage"'),
    headers,
  });
  t.equal(streamed.body.toString(), stream);
  const [first, second] = rt.journal.all();
  t.same([...new Set(first!.conformance!.map((v) => v.rule))].sort(), ['AAP-OK-001', 'AAP-OK-003', 'AAP-RPC-002'], 'the string id and the v0.3 role are named');
  t.same(
    second!.conformance!.map((v) => `${v.rule} ${v.pointer}`).sort(),
    ['AAP-SSE-001 /events/1', 'AAP-SSE-002 /events/1/result'],
    'the second event has the wrong id and no StreamResponse',
  );
});

t.test('without --check-dealer nothing is checked and the report has no dealer section', async (t) => {
  const mock = await startMockDealer({ port: 0 });
  t.teardown(() => mock.close());
  const rt = await startRuntime({ target: mock.url, port: 0, adminPort: 0, env: {} });
  t.teardown(() => rt.close());
  await request(`${rt.url}/a2a`, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
  t.equal(rt.journal.all()[0]!.conformance, undefined);
  t.equal(rt.report().dealer_conformance, undefined);
});
