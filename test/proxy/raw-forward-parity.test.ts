// The pass-through fast path (raw-forward.ts) against the undici path it stands in for, over real
// sockets: the same requests through a proxy with `fastPath` on and one with it off give the same
// journal lines (less ids, times and durations), the same metrics, the same replies and the same
// request at the dealer; and the buyer's side is node:http's own parser either way, so requests
// it refuses (smuggling attempts) are refused exactly as a plain node:http server refuses them.
import t, { type Test } from 'tap';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { startProxy, type StartedProxy } from '../../src/proxy/server.js';
import { startRuntime } from '../../src/runtime.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { sendRaw } from '../helpers/raw-socket.js';
import { skillRequest, startUpstream, waitFor } from '../helpers/servers.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const SUCCESS = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  result: { message: { role: 'ROLE_AGENT', parts: [{ data: { type: 'inventory.search.response' } }] } },
});
const DEALER_ERROR = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  error: { code: -32000, message: 'sold', data: { type: 'aap.error', code: 'VEHICLE_UNAVAILABLE', error_id: 'err_1', retryable: false } },
});
const SSE_ERROR = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { kind: 'status-update', status: { state: 'working' } } })}\n\ndata: ${JSON.stringify(
  {
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32603, message: 'boom' },
  },
)}\n\n`;

/** What the dealer does, by the `x-case` header the buyer sent (the proxy forwards it); anything else (the card the proxy reads at start) is a 404. */
function byCase(req: IncomingMessage, res: ServerResponse): void {
  const handle = CASES[String(req.headers['x-case'])];
  if (handle) handle(req, res);
  else res.writeHead(404).end();
}

const CASES: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  success: (_req, res) => res.writeHead(200, JSON_TYPE).end(SUCCESS),
  'dealer-error': (_req, res) => res.writeHead(200, JSON_TYPE).end(DEALER_ERROR),
  'html-500': (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html>oops</html>'),
  'sse-error': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(SSE_ERROR.slice(0, 40));
    setTimeout(() => res.end(SSE_ERROR.slice(40)), 5);
  },
  'chunked-json': (_req, res) => {
    res.writeHead(200, JSON_TYPE);
    res.write(DEALER_ERROR.slice(0, 30));
    setTimeout(() => res.end(DEALER_ERROR.slice(30)), 5);
  },
  'no-content': (_req, res) => res.writeHead(204).end(),
  'not-modified': (_req, res) => res.writeHead(304, { etag: '"1"' }).end(),
  'lead-duplicate': (_req, res) =>
    res
      .writeHead(200, JSON_TYPE)
      .end(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { message: { parts: [{ data: { type: 'lead.submit.response', status: 'duplicate' } }] } } })),
  'connection-close': (_req, res) => res.writeHead(200, { ...JSON_TYPE, connection: 'close' }).end(SUCCESS),
  'listed-content-type': (_req, res) => res.writeHead(200, { ...JSON_TYPE, connection: 'content-type' }).end(DEALER_ERROR),
  'two-content-types': (_req, res) =>
    res
      .writeHead(
        200,
        [
          ['content-type', 'application/json'],
          ['content-type', 'application/json'],
        ].flat(),
      )
      .end(DEALER_ERROR),
  'close-delimited': (_req, res) => res.socket!.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${DEALER_ERROR}`),
  'http-1.0': (_req, res) => res.socket!.end(`HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n${SUCCESS}`),
  'dies-mid-body': (_req, res) => {
    res.socket!.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n${SUCCESS.slice(0, 20)}`);
    setTimeout(() => res.socket!.destroy(), 10);
  },
  'closes-mid-body': (_req, res) => res.socket!.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n${SUCCESS.slice(0, 20)}`),
  'dies-mid-chunked': (_req, res) => {
    res.writeHead(200, JSON_TYPE);
    res.write(SUCCESS.slice(0, 20));
    setTimeout(() => res.socket!.destroy(), 10);
  },
  'reset-before-reply': (req) => req.socket.destroy(),
  'closes-before-reply': (req) => req.socket.end(),
  'duplicate-content-length': (_req, res) => res.socket!.end('HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab'),
  'garbage-status-line': (_req, res) => res.socket!.end('HTCPCP/1.0 418 teapot\r\n\r\n'),
  'content-length-not-a-number': (_req, res) => res.socket!.end('HTTP/1.1 200 OK\r\ncontent-length: abc\r\n\r\nab'),
  'content-length-and-chunked': (_req, res) =>
    res.socket!.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n'),
  'chunked-and-content-length': (_req, res) =>
    res.socket!.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 2\r\n\r\n2\r\nab\r\n0\r\n\r\n'),
  'space-in-header-name': (_req, res) => res.socket!.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx bad: 1\r\n\r\n{}'),
  'bad-chunk-size': (_req, res) =>
    res.socket!.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n'),
  'switching-protocols': (_req, res) => res.socket!.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'),
  'head-too-large': (_req, res) => res.socket!.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(40_000)}\r\ncontent-length: 2\r\n\r\n{}`),
  'never-answers': () => {},
  'stalls-mid-body': (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-length': 1000 });
    res.write(SUCCESS.slice(0, 20));
  },
  'quiet-stream': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(SSE_ERROR.slice(0, SSE_ERROR.indexOf('\n\n') + 2));
  },
};

/** The ids and times the proxy's own error envelopes carry: new for every reply. */
function sameEnvelopeIds(text: string): string {
  return text.replace(/err_[0-9A-HJKMNP-TV-Z]{26}/g, 'err_ID').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'TIME');
}

/** A journal line less the fields that differ between any two runs of the same request. */
function comparable(e: JournalEntry): Record<string, unknown> {
  const { id: _id, ts: _ts, t: _t, duration_ms: _d, upstream_ms: _u, ...rest } = e as JournalEntry & { upstream_ms?: number };
  return JSON.parse(sameEnvelopeIds(JSON.stringify(rest))) as Record<string, unknown>;
}

interface Sent {
  status: number | 'broken';
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request over a fresh connection; a broken reply is reported, not thrown. */
function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Sent> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: sameEnvelopeIds(Buffer.concat(chunks).toString()), headers: res.headers }));
      res.on('error', () => resolve({ status: 'broken', body: '', headers: {} }));
    });
    req.on('error', () => resolve({ status: 'broken', body: '', headers: {} }));
    req.end(opts.body);
  });
}

async function twoProxies(t: Test, target: string, opts: Record<string, unknown> = {}) {
  const start = async (fastPath: boolean) => {
    const proxy = await startProxy({ target, port: 0, profile: '1.3', fastPath, ...opts });
    const journal: JournalEntry[] = [];
    proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
    t.teardown(() => proxy.close());
    return { proxy, journal };
  };
  const fast = await start(true);
  const undici = await start(false);
  t.ok(fast.proxy.proxy.rawForwarder, 'the first proxy has the fast path');
  t.equal(undici.proxy.proxy.rawForwarder, undefined, 'the second has not');
  return { fast, undici };
}

/** Sends the same request through both proxies and returns what each buyer got and journaled. */
async function both(pair: Awaited<ReturnType<typeof twoProxies>>, opts: Parameters<typeof send>[1] & { path?: string }) {
  const out: { sent: Sent; line: Record<string, unknown> }[] = [];
  for (const side of [pair.fast, pair.undici] as { proxy: StartedProxy; journal: JournalEntry[] }[]) {
    const before = side.journal.length;
    const sent = await send(side.proxy.url + (opts.path ?? '/a2a'), opts);
    await waitFor(() => side.journal.length > before, 10_000);
    out.push({ sent, line: comparable(side.journal[before]!) });
  }
  return out;
}

t.test('the same exchanges give the same journal lines, replies and statuses on both paths', async (t) => {
  const dealer = await startUpstream(byCase);
  t.teardown(() => dealer.close());
  const pair = await twoProxies(t, dealer.url, { upstreamTimeoutMs: 300, streamIdleTimeoutMs: 300 });
  for (const name of Object.keys(CASES)) {
    const skill = name.startsWith('lead') ? 'lead.submit' : 'inventory.search';
    const [fast, undici] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': name }, body: skillRequest(skill, {}, 7) });
    t.same(fast!.line, undici!.line, `${name}: the same journal line`);
    t.equal(fast!.sent.status, undici!.sent.status, `${name}: the same status (${undici!.sent.status})`);
    t.equal(fast!.sent.body, undici!.sent.body, `${name}: the same body`);
    t.equal(fast!.sent.headers['content-type'], undici!.sent.headers['content-type'], `${name}: the same content type`);
  }
  // A few that tell the cases apart, so that equal lines are not equal by being empty.
  const [ok] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': 'dealer-error' }, body: skillRequest('inventory.search', {}, 7) });
  t.match(ok!.line, { status: 200, source: 'dealer', rpc_code: -32000, error_code: 'VEHICLE_UNAVAILABLE' });
  const [cut] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': 'dies-mid-body' }, body: skillRequest('inventory.search', {}, 7) });
  t.match(cut!.line, { status: 200, aborted: true, unknown_cause: 'truncated' });
  const [bad] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': 'duplicate-content-length' }, body: skillRequest('inventory.search', {}, 7) });
  t.match(bad!.line, { status: 502, source: 'proxy' });
  t.match((bad!.line.notes as string[]).join(' '), /could not be reached \(UND_ERR_RES_CONTENT_LENGTH_MISMATCH\)/);
  const [garbage] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': 'garbage-status-line' }, body: skillRequest('inventory.search', {}, 7) });
  t.match((garbage!.line.notes as string[]).join(' '), /could not be reached \(HTTPParserError\)/);
  const [quiet] = await both(pair, { headers: { ...JSON_TYPE, 'x-case': 'quiet-stream' }, body: skillRequest('inventory.search', {}, 7) });
  t.match((quiet!.line.notes as string[]).join(' '), /--stream-idle-timeout \(300 ms\)/);
});

t.test('a head that breaks after a Content-Length line: the same 502, a cause worded differently', async (t) => {
  const dealer = await startUpstream((_req, res) => res.socket!.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx bad: 1\r\n\r\n{}'));
  t.teardown(() => dealer.close());
  const pair = await twoProxies(t, dealer.url);
  const [fast, undici] = await both(pair, { headers: JSON_TYPE, body: skillRequest('inventory.search', {}, 7) });
  t.same([fast!.sent.status, fast!.line.status, fast!.line.source], [502, 502, 'proxy']);
  t.same([undici!.sent.status, undici!.line.status, undici!.line.source], [502, 502, 'proxy']);
  // undici collects the length as it goes and names the mismatch; node's parser hands over no header before the head is whole.
  t.match((undici!.line.notes as string[]).join(' '), /UND_ERR_RES_CONTENT_LENGTH_MISMATCH/);
  t.match((fast!.line.notes as string[]).join(' '), /HTTPParserError/);
});

t.test('other methods and paths: GET, HEAD, an empty POST', async (t) => {
  const dealer = await startUpstream((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(200, { ...JSON_TYPE, 'content-length': 99 }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`);
  });
  t.teardown(() => dealer.close());
  const pair = await twoProxies(t, dealer.url);
  for (const [method, path, body] of [
    ['GET', '/health?x=1', undefined],
    ['HEAD', '/a2a', undefined],
    ['POST', '/a2a', ''],
    ['DELETE', '/things/1', undefined],
  ] as const) {
    const [fast, undici] = await both(pair, { method, path, body });
    t.same(fast!.line, undici!.line, `${method} ${path}: the same journal line`);
    t.same([fast!.sent.status, fast!.sent.body], [undici!.sent.status, undici!.sent.body], `${method} ${path}: the same reply`);
    if (method === 'HEAD') t.equal(fast!.sent.headers['content-length'], '99', "a HEAD's reply keeps the dealer's content-length, with no body");
  }
});

t.test('the dealer receives the same request from both paths', async (t) => {
  const dealer = await startUpstream((_req, res) => res.writeHead(200, JSON_TYPE).end(SUCCESS));
  t.teardown(() => dealer.close());
  const pair = await twoProxies(t, `${dealer.url}/base`);
  // The card the proxies read at start is not one of the requests compared.
  await waitFor(() => dealer.seen.length >= 2);
  dealer.seen.length = 0;
  const requests: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }> = [
    { method: 'POST', path: '/a2a', headers: { ...JSON_TYPE, 'a2a-version': '1.0', 'x-forwarded-for': '10.0.0.1' }, body: skillRequest('inventory.search') },
    { method: 'POST', path: '/a2a', headers: { ...JSON_TYPE, connection: 'keep-alive, x-private', 'x-private': 'secret', te: 'trailers' }, body: '{}' },
    { method: 'POST', path: '/a2a', headers: { 'content-length': '0' }, body: '' },
    { method: 'GET', path: '/.well-known/other?q=1', headers: { accept: 'application/json', cookie: 'a=1' } },
    { method: 'GET', path: '/with-body', headers: JSON_TYPE, body: '{"x":1}' },
    { method: 'HEAD', path: '/a2a', headers: {} },
    { method: 'PUT', path: '/a2a', headers: { 'transfer-encoding': 'chunked' }, body: 'chunked body' },
  ];
  for (const r of requests) {
    const seen: (typeof dealer.seen)[number][] = [];
    for (const side of [pair.fast, pair.undici]) {
      const before = dealer.seen.length;
      await send(side.proxy.url + r.path, r);
      await waitFor(() => dealer.seen.length > before);
      seen.push(dealer.seen[before]!);
    }
    const [fast, undici] = seen;
    // Each proxy names itself in X-Forwarded-Host: the one header that differs by design.
    const view = (s: (typeof dealer.seen)[number]) => ({
      method: s.method,
      url: s.url,
      headers: { ...s.headers, 'x-forwarded-host': 'the proxy' },
      body: s.body.toString(),
    });
    t.same(view(fast!), view(undici!), `${r.method} ${r.path}: the same request at the dealer`);
  }
  t.equal(dealer.seen[0]!.url, '/base/a2a', "under the target's base path");
  t.equal(dealer.seen[0]!.headers['x-forwarded-for'], '10.0.0.1, 127.0.0.1');
});

t.test('the dealer receives the same bytes, header order and case included', async (t) => {
  // A raw dealer: the request head as written, then a fixed reply that closes the connection.
  const heads: string[] = [];
  const server = net.createServer((socket) => {
    let text = '';
    socket.on('data', (c) => {
      text += c.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      // The card the proxy reads at start is not one of the requests compared.
      if (!text.includes('agent-card.json')) heads.push(text.replace(/\r\nx-forwarded-host: [^\r]*/, ''));
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const pair = await twoProxies(t, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  for (const body of [skillRequest('inventory.search'), undefined]) {
    for (const side of [pair.fast, pair.undici])
      await send(side.proxy.url + '/a2a', { method: body ? 'POST' : 'GET', headers: { ...JSON_TYPE, 'X-Custom': 'v' }, body });
    const [fast, undici] = heads.splice(0, 2);
    t.equal(fast, undici, `${body ? 'POST' : 'GET'}: byte for byte`);
    t.match(fast, /^(POST|GET) \/a2a HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nconnection: keep-alive\r\n/, 'host and connection first');
  }
});

t.test('the metrics are the same for the same traffic', async (t) => {
  const dealer = await startUpstream(byCase);
  t.teardown(() => dealer.close());
  const metrics: string[] = [];
  for (const fastPath of [true, false]) {
    const rt = await startRuntime({ target: dealer.url, port: 0, adminPort: 0, env: {}, profile: '1.3', upstreamTimeoutMs: 300, fastPath });
    t.teardown(() => rt.close());
    t.equal(rt.proxy.rawForwarder !== undefined, fastPath, `fast path ${fastPath ? 'on' : 'off'}`);
    for (const name of ['success', 'dealer-error', 'html-500', 'sse-error', 'dies-mid-body', 'duplicate-content-length', 'never-answers']) {
      await send(`${rt.url}/a2a`, { headers: { ...JSON_TYPE, 'x-case': name }, body: skillRequest('inventory.search', {}, 7) });
    }
    await waitFor(() => rt.journal.size >= 7);
    const text = await (await fetch(`${rt.adminUrl}/metrics`)).text();
    // Latency buckets and sums depend on the clock; their counts do not.
    metrics.push(
      text
        .split('\n')
        .filter((l) => l.startsWith('aap_chaos_') && !/^aap_chaos_upstream_latency_seconds_(bucket|sum)/.test(l))
        .join('\n'),
    );
  }
  t.match(metrics[0], /aap_chaos_requests_total\{[^}]*outcome="proxy"[^}]*\} 2/, 'the two 502s are counted');
  t.equal(metrics[0], metrics[1]);
});

/** The first status code a server answers raw bytes with (0 when it answers nothing before closing). */
async function statusFor(url: string, bytes: string): Promise<number> {
  const got = await sendRaw(url, [bytes], 3_000);
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(got.reply)?.[1] ?? 0);
}

t.test("requests node:http refuses are refused by the proxy alike: the buyer's side is node's parser", async (t) => {
  const plain = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  t.teardown(() => plain.close());
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  const dealer = await startUpstream((_req, res) => res.writeHead(200, JSON_TYPE).end(SUCCESS));
  t.teardown(() => dealer.close());
  const proxy = await startProxy({ target: dealer.url, port: 0, profile: '1.3' });
  t.teardown(() => proxy.close());
  t.ok(proxy.proxy.rawForwarder, 'with the fast path');
  const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';
  const head = 'POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\n';
  const cases: Record<string, string> = {
    'a plain request (the control)': `${head}content-length: ${body.length}\r\n\r\n${body}`,
    'Content-Length and Transfer-Encoding together': `${head}content-length: ${body.length}\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    'two different Content-Lengths': `${head}content-length: ${body.length}\r\ncontent-length: 5\r\n\r\n${body}`,
    'two equal Content-Lengths': `${head}content-length: ${body.length}\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    'a Content-Length with a sign': `${head}content-length: +${body.length}\r\n\r\n${body}`,
    'Transfer-Encoding that does not end in chunked': `${head}transfer-encoding: chunked, identity\r\n\r\n${body}`,
    'Transfer-Encoding written twice': `${head}transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    'an obs-fold header line': `${head}x-folded: a\r\n b\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    'bare LF line endings': `POST /a2a HTTP/1.1\nhost: 127.0.0.1\ncontent-type: application/json\nconnection: close\ncontent-length: ${body.length}\n\n${body}`,
    'a bare LF in one header line': `${head}x-a: 1\ncontent-length: ${body.length}\r\n\r\n${body}`,
    'a space before the colon': `${head}content-length : ${body.length}\r\n\r\n${body}`,
    'a chunk size that is not hex': `${head}transfer-encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    'a bare CR in a header value': `${head}x-a: 1\r2\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    'an HTTP/1.1 request without Host': `POST /a2a HTTP/1.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  };
  for (const [name, bytes] of Object.entries(cases)) {
    const expected = await statusFor(plainUrl, bytes);
    t.equal(await statusFor(proxy.url, bytes), expected, `${name}: ${expected}, as node:http answers`);
  }
  t.equal(await statusFor(plainUrl, cases['two different Content-Lengths']!), 400, 'node refuses a smuggling attempt (so the comparison means something)');
});
