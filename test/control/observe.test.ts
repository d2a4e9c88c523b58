// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// --observe in front of a dealer that rate-limits on its own: nothing is injected, no reply byte
// changes, and a naive buyer's early retry is graded live: metrics, /events and GET /report.
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { buildAapError } from '../../src/protocol/envelopes.js';
import { request, skillRequest, startUpstream, type Upstream } from '../helpers/servers.js';

/** A dealer with a limit of its own: after the first search, every search within a second is RATE_LIMITED. */
async function rateLimitingDealer(t: Test): Promise<Upstream & { sent: Buffer[] }> {
  const sent: Buffer[] = [];
  let last = 0;
  const upstream = await startUpstream((req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const id = (JSON.parse(body.toString()) as { id: number }).id;
    const now = Date.now();
    const limited = now - last < 1_000;
    if (!limited) last = now;
    const reply = limited
      ? buildAapError('1.3', 'RATE_LIMITED', id, { retryAfterMs: 1_000 - (now - last) })
      : {
          jsonrpc: '2.0',
          id,
          result: { message: { messageId: `r-${id}`, role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response', total: 0, vehicles: [] } }] } },
        };
    const bytes = Buffer.from(JSON.stringify(reply));
    sent.push(bytes);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  });
  t.teardown(() => upstream.close());
  return Object.assign(upstream, { sent });
}

async function observing(t: Test, target: string, scenario?: string): Promise<Runtime> {
  const rt = await startRuntime({ target, port: 0, adminPort: 0, profile: '1.3', observe: true, scenario, clientKey: 'header:x-buyer' });
  t.teardown(() => rt.close());
  return rt;
}

const search = (url: string, id: number, buyer: string) =>
  request(`${url}/a2a`, {
    body: skillRequest('inventory.search', { filters: { make: ['Honda'] } }, id),
    headers: { 'content-type': 'application/json', 'x-buyer': buyer },
  });

/** The next /events message that satisfies `test`. */
function nextEvent(adminUrl: string, test: (message: any) => boolean): { opened: Promise<void>; message: Promise<any>; close(): void } {
  const ws = new WebSocket(`${adminUrl.replace(/^http/, 'ws')}/events`);
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const message = new Promise<any>((resolve) => {
    ws.on('message', (data) => {
      const parsed = JSON.parse(data.toString());
      if (test(parsed)) resolve(parsed);
    });
  });
  return { opened, message, close: () => ws.close() };
}

t.test("--observe: a naive buyer's early retry after the dealer's own RATE_LIMITED is a retry-after FAIL; no byte changed", async (t) => {
  const dealer = await rateLimitingDealer(t);
  const rt = await observing(t, dealer.url);
  const verdict = nextEvent(rt.adminUrl, (m) => m.type === 'verdict' && m.check === 'retry-after');
  t.teardown(() => verdict.close());
  await verdict.opened;

  // The naive buyer: a search, a second one that gets RATE_LIMITED, and at once a third.
  const replies = [await search(rt.url, 1, 'naive'), await search(rt.url, 2, 'naive'), await search(rt.url, 3, 'naive')];
  t.equal(JSON.parse(replies[1]!.body.toString()).error.data.code, 'RATE_LIMITED', "the dealer's own limit");
  t.same(
    replies.map((r) => r.body),
    dealer.sent,
    'every reply is byte for byte what the dealer sent',
  );
  t.ok(
    replies.every((r) => r.status === 200 && Object.keys(r.headers).every((h) => !h.startsWith('x-aap-chaos'))),
    'no status or marker header of the proxy',
  );

  const event = await verdict.message;
  t.match(event, { type: 'verdict', check: 'retry-after', verdict: 'FAIL', explanation: /came back early/ });
  t.equal(event.evidence.length, 2, 'the RATE_LIMITED reply and the early retry');

  const metrics = await rt.metrics.text();
  t.match(metrics, /aap_chaos_buyer_check_verdicts_total\{check="retry-after",verdict="FAIL"\} 1\n/);

  const report = (await (await fetch(`${rt.adminUrl}/report`)).json()) as any;
  const row = report.checks.find((c: any) => c.check === 'retry-after');
  t.match(row, { verdict: 'FAIL', client: event.client });
  t.equal(report.observe.verdicts['retry-after'].FAIL, 1);
  t.match(report.observe.recent, [{ check: 'retry-after', verdict: 'FAIL', client: event.client }]);
  t.same(
    report.observe.recent.map((v: any) => [v.check, v.verdict]).sort(),
    [
      ['no-storm', 'FAIL'],
      ['retry-after', 'FAIL'],
    ],
    'the storm inside the window too; no PASS told while the buyer could still come back early',
  );
  t.equal(rt.status().observe, true);
  t.equal(rt.status().dry_run, true);
});

t.test('--observe with a scenario: rules are decided and journaled, never applied; dry run cannot be switched off', async (t) => {
  const dealer = await rateLimitingDealer(t);
  const rt = await observing(t, dealer.url, 'rules:\n  - id: always-fail\n    error: INTERNAL_ERROR\n');
  const reply = await search(rt.url, 1, 'calm');
  t.same(reply.body, dealer.sent[0], "the dealer's reply, not the rule's error");
  t.same(rt.journal.all()[0]!.fired, ['always-fail'], 'the rule fired');
  t.equal(rt.journal.all()[0]!.dry_run, true);
  const off = await fetch(`${rt.adminUrl}/dry-run`, {
    method: 'PUT',
    body: JSON.stringify({ enabled: false }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(off.status, 409);
  t.match(((await off.json()) as any).error.message, /observe mode/);
  t.equal(rt.status().dry_run, true);
});

t.test('a buyer that waits out the hint passes, told once it has been quiet a while', async (t) => {
  const dealer = await rateLimitingDealer(t);
  const rt = await observing(t, dealer.url);
  const verdict = nextEvent(rt.adminUrl, (m) => m.type === 'verdict' && m.check === 'retry-after');
  t.teardown(() => verdict.close());
  await verdict.opened;
  await search(rt.url, 1, 'patient');
  const limited = JSON.parse((await search(rt.url, 2, 'patient')).body.toString());
  await new Promise((r) => setTimeout(r, limited.error.data.details.retry_after_ms + 20)); // the buyer honouring the hint
  await search(rt.url, 3, 'patient');
  t.match(await verdict.message, { verdict: 'PASS', check: 'retry-after' });
  t.match(await rt.metrics.text(), /aap_chaos_buyer_check_verdicts_total\{check="retry-after",verdict="PASS"\} 1\n/);
  t.notMatch(await rt.metrics.text(), /verdict="FAIL"/);
});

t.test("--observe: the dealer's own retryable INTERNAL_ERROR grades backoff and idempotency", async (t) => {
  const LEADS = 6;
  const failing = await startUpstream((req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const bytes = Buffer.from(JSON.stringify(buildAapError('1.3', 'INTERNAL_ERROR', (JSON.parse(body.toString()) as { id: number }).id, { retryable: true })));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  });
  t.teardown(() => failing.close());
  const rt = await observing(t, failing.url);
  // Graded after the sixth lead: the idempotency FAIL then names all six (backoff is graded before it, in the same pass).
  const seen = nextEvent(rt.adminUrl, (m) => m.type === 'verdict' && m.check === 'idempotency' && m.evidence.length === LEADS);
  t.teardown(() => seen.close());
  await seen.opened;
  // A naive lead retry loop: at once, five times (the bound backoff allows), each with a new
  // idempotency key. Five retries, not three: on a busy machine each "at once" may land tens of
  // milliseconds late, and five doubling full-jitter windows still make such waits too short to
  // be backoff, where three did not.
  const lead = (id: number) => ({ idempotency_key: `lead-${id}`, vehicle: { vin: 'V1' }, customer: { name: 'A' }, consent: { contact: true } });
  for (let id = 1; id <= LEADS; id++)
    await request(`${rt.url}/a2a`, { body: skillRequest('lead.submit', lead(id), id), headers: { 'content-type': 'application/json', 'x-buyer': 'hasty' } });
  await seen.message;
  const metrics = await rt.metrics.text();
  t.match(metrics, /aap_chaos_buyer_check_verdicts_total\{check="backoff",verdict="FAIL"\} [1-9]\n/, 'the retry chain, counted as it grew');
  t.match(metrics, /aap_chaos_buyer_check_verdicts_total\{check="idempotency",verdict="FAIL"\} 5\n/, 'one violation per retry under a new key');
  const report = rt.report();
  t.match(
    report.checks.find((c) => c.check === 'backoff'),
    { verdict: 'FAIL', explanation: /at once/ },
  );
  t.match(
    report.checks.find((c) => c.check === 'idempotency'),
    { verdict: 'FAIL', explanation: /new idempotency_key/ },
  );
});
