import t from 'tap';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { startProxy } from '../../src/proxy/server.js';
import { request, startUpstream } from '../helpers/servers.js';

t.test('bodies and headers pass through byte for byte in both directions', async (t) => {
  const up = await startUpstream((req, res, body) => {
    // Echo the body back with a few headers of the dealer's own.
    res.writeHead(201, { 'content-type': req.headers['content-type'] ?? 'application/octet-stream', 'x-dealer': 'yes', 'set-cookie': ['a=1', 'b=2'] });
    res.end(body);
  });
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const cases: [string, Buffer][] = [
    ['json', Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { blob: randomBytes(2000).toString('base64') } }))],
    ['binary 64 KiB', randomBytes(64 * 1024)],
    ['binary 5 MB (past the inspection limit)', randomBytes(5 * 1024 * 1024)],
    ['random json 2 MB', Buffer.from(JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ i, s: randomBytes(30).toString('hex') })) }))],
  ];
  for (const [name, body] of cases) {
    const reply = await request(proxy.url + '/a2a?x=1', {
      body,
      headers: { 'content-type': 'application/octet-stream', 'x-buyer': 'b-1', connection: 'keep-alive, x-drop-me', 'x-drop-me': 'secret' },
    });
    t.equal(reply.status, 201, `${name}: status`);
    t.ok(reply.body.equals(body), `${name}: response body identical (${body.length} bytes)`);
    const seen = up.seen.at(-1)!;
    t.ok(seen.body.equals(body), `${name}: request body identical`);
    t.equal(seen.url, '/a2a?x=1', `${name}: path and query kept`);
    t.equal(seen.headers['x-buyer'], 'b-1', `${name}: end-to-end header kept`);
    t.equal(seen.headers['x-drop-me'], undefined, `${name}: header named in Connection dropped`);
    t.equal(reply.headers['x-dealer'], 'yes');
    t.same(reply.headers['set-cookie'], ['a=1', 'b=2'], 'repeated headers kept');
  }
});

t.test("the buyer's X-Forwarded-Host and -Proto are overwritten with what the proxy saw; X-Forwarded-For gets the buyer's address appended", async (t) => {
  const up = await startUpstream((_req, res) => res.end('ok'));
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const host = new URL(proxy.url).host;
  // Through both paths: pass-through, and the card (read and rewritten by the proxy).
  for (const path of ['/a2a', '/.well-known/agent-card.json']) {
    await request(proxy.url + path, {
      method: 'GET',
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
    });
    const seen = up.seen.at(-1)!;
    t.equal(seen.headers['x-forwarded-host'], host, `${path}: the Host the buyer connected to, not the one it claimed`);
    t.equal(seen.headers['x-forwarded-proto'], 'http', `${path}: the scheme of the buyer's connection`);
    t.equal(seen.headers['x-forwarded-for'], '203.0.113.9, 127.0.0.1', `${path}: the chain, then the address the proxy saw`);
  }
});

t.test('keep-alive: many requests reuse few upstream connections', async (t) => {
  let connections = 0;
  const up = await startUpstream((_req, res) => res.end('{}'));
  up.server.on('connection', () => connections++);
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  for (let i = 0; i < 20; i++) await request(proxy.url + '/', { body: '{}' });
  t.ok(connections <= 2, `20 sequential requests used ${connections} upstream connection(s)`);
});

t.test('SSE events reach the buyer as they are sent, before the stream ends', async (t) => {
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"n":1}\n\n');
    void finished.then(() => res.end('data: {"n":2}\n\n'));
  });
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const req = http.request(proxy.url + '/a2a', { method: 'POST', agent: false });
  req.end('{}');
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  t.equal(res.headers['content-type'], 'text/event-stream');
  const [first] = (await once(res, 'data')) as [Buffer];
  t.equal(first.toString(), 'data: {"n":1}\n\n', 'first event arrived while the dealer still holds the stream open');
  finish();
  const rest: Buffer[] = [];
  res.on('data', (c) => rest.push(c));
  await once(res, 'end');
  t.equal(Buffer.concat(rest).toString(), 'data: {"n":2}\n\n');
});

t.test('a buyer that disconnects cancels the upstream request at once', async (t) => {
  let upstreamClosed!: () => void;
  const closed = new Promise<void>((r) => (upstreamClosed = r));
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {}\n\n');
    res.on('close', () => upstreamClosed());
  });
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const req = http.request(proxy.url + '/a2a', { method: 'POST', agent: false });
  req.end('{}');
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  await once(res, 'data');
  req.destroy();
  await closed;
  t.pass('the dealer saw its connection close after the buyer left');
});

t.test('an upstream that dies mid-response reaches the buyer as a broken response', async (t) => {
  const up = await startUpstream((req, res) => {
    if (req.url !== '/a2a') return void res.end('{}');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"partial":');
    setImmediate(() => res.socket?.destroy());
  });
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  await t.rejects(request(proxy.url + '/a2a', { body: '{}' }), 'the buyer sees an error, not a hang');
  const after = await request(proxy.url + '/.well-known/other', {});
  t.equal(after.status, 200, 'the proxy keeps serving');
});

t.test('the request path survives bodies that are not JSON-RPC and forwards them unchanged', async (t) => {
  const up = await startUpstream((_req, res, body) => res.end(body));
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  for (const body of ['not json', '[{"jsonrpc":"2.0","id":1,"method":"SendMessage"}]', '{"hello":1}', '42', '']) {
    const reply = await request(proxy.url + '/a2a', { method: 'POST', body });
    t.equal(reply.body.toString(), body, `forwarded: ${JSON.stringify(body)}`);
  }
  t.equal(up.seen.filter((r) => r.url === '/a2a').length, 5, 'every one reached the dealer');
});

t.test("the journal names the dealer's own errors on the pass-through path, and only those", async (t) => {
  const replies = [
    {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'sold', data: { type: 'aap.error', code: 'VEHICLE_UNAVAILABLE', error_id: 'err_1', retryable: false } },
    },
    { jsonrpc: '2.0', id: 2, result: { message: { parts: [{ data: { note: 'an "error" inside a success' } }] } } },
  ];
  let n = 0;
  const up = await startUpstream((req, res) => {
    if (req.url !== '/a2a') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(replies[n++ % 2]));
  });
  const proxy = await startProxy({ target: up.url, port: 0, profile: '1.3' });
  const journal: import('../../src/journal/entry.js').JournalEntry[] = [];
  proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  await request(proxy.url + '/a2a', { body: '{}' });
  await request(proxy.url + '/a2a', { body: '{}' });
  t.match(journal[0], { source: 'dealer', rpc_code: -32000, error_code: 'VEHICLE_UNAVAILABLE', error_id: 'err_1', retryable: false });
  t.equal(journal[1]!.error_code, undefined, 'a success that mentions "error" is not an error');
});
