// What the proxy writes in a journal line about the reply, over real sockets: `outcome` for every
// fault it can inject and for the dealer's own replies, the codes of an SSE error event, the
// profile and extension URI in force, and header client keys written as hashes.
import t from 'tap';
import http from 'node:http';
import { harness } from '../helpers/chaos-harness.js';
import { request, skillRequest, waitFor } from '../helpers/servers.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { buildAapError } from '../../src/protocol/envelopes.js';

const rule = (body: string) => `rules:\n  - id: r\n${body.replace(/^/gm, '    ')}\n`;

/** Sends one request and waits for its journal line, whether or not the reply arrives whole. */
async function lineFor(h: Awaited<ReturnType<typeof harness>>, opts: { body?: string; headers?: Record<string, string>; abortAfterMs?: number } = {}) {
  const before = h.journal.length;
  await new Promise<void>((resolve) => {
    const req = http.request(
      h.proxy.url + '/a2a',
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...opts.headers } },
      (res) => {
        res.on('data', () => {});
        res.on('end', resolve);
        res.on('error', () => resolve());
        res.on('aborted', () => resolve());
      },
    );
    req.on('error', () => resolve());
    // Counted from when the proxy has the request: counted from the send, a starved machine could
    // let the buyer leave before the request reached the proxy, which then has nothing to journal.
    const abortAfterMs = opts.abortAfterMs;
    if (abortAfterMs !== undefined) h.proxy.proxy.server.once('request', () => setTimeout(() => req.destroy(), abortAfterMs));
    req.end(opts.body ?? skillRequest('inventory.search', {}, 7));
  });
  await waitFor(() => h.journal.length > before, 10_000);
  return h.journal[before]!;
}

t.test('every injected fault gets its outcome', async (t) => {
  const cases: [string, string, string | undefined][] = [
    ['network: reset', 'unknown', 'reset'],
    ['network: { hang_ms: 50 }', 'unknown', 'hang'],
    ['network: malformed_json', 'unknown', 'malformed_json'],
    ['network: { truncate_bytes: 20 }', 'unknown', 'truncated'],
    ['http: { status: 502, headers: { content-type: text/html }, body: "<html>502 Bad Gateway</html>" }', 'unknown', 'not_jsonrpc'],
    ['http: { status: 503, headers: { retry-after: 2 } }', 'unknown', 'not_jsonrpc'],
    ['error: RATE_LIMITED', 'error', undefined],
    ['delay: { ms: 1, distribution: fixed }', 'result', undefined],
  ];
  for (const [effect, outcome, cause] of cases) {
    const h = await harness(t, rule(effect));
    const line = await lineFor(h);
    t.equal(line.outcome, outcome, `${effect}: outcome`);
    t.equal(line.unknown_cause, cause, `${effect}: cause`);
  }
});

t.test('a buyer that gives up during a delay: outcome unknown, cause timeout', async (t) => {
  const h = await harness(t, rule('delay: { ms: 5000, distribution: fixed }'));
  const line = await lineFor(h, { abortAfterMs: 100 });
  t.equal(line.outcome, 'unknown');
  t.equal(line.unknown_cause, 'timeout');
});

t.test("the dealer's own replies: result, JSON-RPC error, HTML 502, empty 503, malformed JSON", async (t) => {
  const replies: [number, string, string, string, string | undefined][] = [
    [200, 'application/json', JSON.stringify({ jsonrpc: '2.0', id: 7, result: { ok: true } }), 'result', undefined],
    [200, 'application/json', JSON.stringify(buildAapError('1.3', 'INTERNAL_ERROR', 7)), 'error', undefined],
    [502, 'text/html', '<html><h1>502 Bad Gateway</h1></html>', 'unknown', 'not_jsonrpc'],
    [503, 'application/json', '', 'unknown', 'not_jsonrpc'],
    [500, 'application/json', '{"jsonrpc":"2.0","id":7,"error":{"code":', 'unknown', 'malformed_json'],
  ];
  let next = 0;
  const h = await harness(t, 'rules: []\n', {
    dealer: (req, res) => {
      if (req.method === 'GET') return void res.writeHead(404).end(); // the proxy's card read
      const [status, type, body] = replies[next++]!;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    },
  });
  for (const [status, , , outcome, cause] of replies) {
    const line = await lineFor(h);
    t.equal(line.outcome, outcome, `dealer ${status}: outcome`);
    t.equal(line.unknown_cause, cause, `dealer ${status}: cause`);
  }
  t.equal(h.journal[1]!.error_code, 'INTERNAL_ERROR');
});

const streamRequest = JSON.stringify({
  jsonrpc: '2.0',
  id: 9,
  method: 'SendStreamingMessage',
  params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request' } }] } },
});
const sseEvent = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const statusUpdate = { jsonrpc: '2.0', id: 9, result: { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } } };

t.test("an SSE error event is journaled with its codes: the proxy's error_after and the dealer's own (last wins)", async (t) => {
  const sse = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseEvent(statusUpdate));
    res.write(sseEvent(buildAapError('1.3', 'RATE_LIMITED', 9, { details: { retry_after_ms: 100 } }), 'error'));
    res.end(sseEvent(buildAapError('1.3', 'INTERNAL_ERROR', 9, { retryable: false }), 'error'));
  };
  const injected = await harness(t, rule('match: { method: SendStreamingMessage }\nstream: { error_after: 1 }'), { dealer: sse });
  const a = await lineFor(injected, { body: streamRequest });
  t.equal(a.status, 200);
  t.equal(a.outcome, 'error');
  t.equal(a.rpc_code, -32603);
  t.equal(a.error_code, 'INTERNAL_ERROR');
  t.equal(a.retryable, true);
  t.equal(a.error_in_stream, true);

  const own = await harness(t, 'rules: []\n', { dealer: sse });
  const b = await lineFor(own, { body: streamRequest });
  t.equal(b.outcome, 'error', 'pass-through stream');
  t.equal(b.error_code, 'INTERNAL_ERROR', 'the last error event wins');
  t.equal(b.retryable, false);

  const cut = await harness(t, rule('match: { method: SendStreamingMessage }\nstream: { cut_after: 1 }'), { dealer: sse });
  const c = await lineFor(cut, { body: streamRequest });
  t.equal(c.outcome, 'unknown');
  t.equal(c.unknown_cause, 'truncated');
});

t.test('each line records the profile and extension URI in force, and a -32008 names its URI', async (t) => {
  const h = await harness(t, rule('require: { extension: true }'), { proxy: { profile: '1.3', extensionUri: AAP_EXTENSION_URI_1_3 } });
  const line = await lineFor(h);
  t.equal(line.profile, '1.3');
  t.equal(line.extension_uri, AAP_EXTENSION_URI_1_3);
  t.equal(line.required_extension, AAP_EXTENSION_URI_1_3);
});

t.test('a header client key is written as a keyed hash, never as the value', async (t) => {
  const secret = 'sk-live-very-secret-api-key';
  const h = await harness(t, 'rules: []\n', { proxy: { clientKey: 'header:X-Api-Key' } });
  const a = await lineFor(h, { headers: { 'x-api-key': secret } });
  const b = await lineFor(h, { headers: { 'x-api-key': secret } });
  const c = await lineFor(h, { headers: { 'x-api-key': 'another' } });
  t.match(a.client, /^key:[0-9a-f]{12}$/);
  t.equal(a.client, b.client, 'stable');
  t.not(a.client, c.client);
  t.equal(a.client_key, 'header:x-api-key');
  t.notMatch(JSON.stringify(h.journal), secret);
});

t.test('without --client-key, the one header every rule keys on groups the clients', async (t) => {
  const h = await harness(
    t,
    'rules:\n  - { id: a, key: "header:x-buyer", delay: { ms: 1, distribution: fixed } }\n  - { id: b, key: "header:X-Buyer", match: { skill: lead.submit }, error: INTERNAL_ERROR }\n',
    { proxy: { clientKey: undefined } },
  );
  const line = await lineFor(h, { headers: { 'x-buyer': 'buyer-one' } });
  t.equal(line.client_key, 'header:x-buyer');
  t.match(line.client, /^key:/);
  const mixed = await harness(
    t,
    'rules:\n  - { id: a, key: "header:x-buyer", delay: { ms: 1, distribution: fixed } }\n  - { id: b, delay: { ms: 1, distribution: fixed } }\n',
  );
  const ip = await lineFor(mixed, { headers: { 'x-buyer': 'buyer-one' } });
  t.equal(ip.client_key, 'ip');
  t.equal(ip.client, '127.0.0.1');
});

t.test('the request line still reaches the buyer untouched on pass-through', async (t) => {
  const h = await harness(t, 'rules: []\n');
  const reply = await request(h.proxy.url + '/a2a', { body: skillRequest('inventory.search', {}, 3), headers: { 'content-type': 'application/json' } });
  t.equal(reply.status, 200);
  await waitFor(() => h.journal.length === 1);
  t.equal(h.journal[0]!.outcome, 'result');
});

/** The JSON-RPC id of a request body (null for a GET of the card). */
const idOf = (body: Buffer): number | null => (body.length ? (JSON.parse(body.toString()) as { id: number }).id : null);

t.test("the journal keeps each reply's own retryable, over the table default, in both profiles: the dealer's own errors and injected ones", async (t) => {
  const overrides = [
    ['SCHEMA_VALIDATION_FAILED', true],
    ['VEHICLE_UNAVAILABLE', true],
    ['IDEMPOTENCY_CONFLICT', true],
    ['INTERNAL_ERROR', false],
    ['RATE_LIMITED', false],
  ] as const;
  for (const profile of ['1.3', '2.0'] as const) {
    for (const [code, retryable] of overrides) {
      // The dealer's own envelope, passed through untouched.
      const dealer = await harness(t, 'rules: []', {
        proxy: { profile },
        dealer: (_req, res, body) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(buildAapError(profile, code, idOf(body), { retryable })));
        },
      });
      const passed = await lineFor(dealer);
      t.match(passed, { source: 'dealer', error_code: code, retryable }, `${profile} ${code} from the dealer: retryable ${retryable}`);
      // The same override from a scenario rule.
      const injected = await harness(t, rule(`error: { code: ${code}, retryable: ${retryable} }`), { proxy: { profile } });
      t.match(await lineFor(injected), { source: 'injected', error_code: code, retryable }, `${profile} ${code} injected: retryable ${retryable}`);
    }
  }
  // A 2.0 dealer (or an SDK on the way) that keeps only the ErrorInfo: its string metadata.retryable.
  const lossy = await harness(t, 'rules: []', {
    proxy: { profile: '2.0' },
    dealer: (_req, res, body) => {
      const envelope = buildAapError('2.0', 'SCHEMA_VALIDATION_FAILED', idOf(body), { retryable: true });
      const data = (envelope.error.data as Record<string, unknown>[]).filter((e) => String(e['@type']).endsWith('ErrorInfo'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...envelope, error: { ...envelope.error, data } }));
    },
  });
  t.match(await lineFor(lossy), { error_code: 'SCHEMA_VALIDATION_FAILED', retryable: true }, 'read from the ErrorInfo when the payload is missing');
});
