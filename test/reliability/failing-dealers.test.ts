// Dealers that fail in the ways real ones do: the buyer always gets an answer or a closed
// connection within the upstream timeout, and the proxy keeps serving.
import t, { type Test } from 'tap';
import net from 'node:net';
import http from 'node:http';
import { startProxy } from '../../src/proxy/server.js';
import { startRuntime } from '../../src/runtime.js';
import { skillRequest } from '../helpers/servers.js';

/** A dealer on a raw socket: `onRequest` gets the socket once a request's head has arrived. */
async function rawDealer(t: Test, onRequest: (socket: net.Socket, head: string) => void): Promise<string> {
  const server = net.createServer((socket) => {
    let buf = '';
    socket.on('error', () => {});
    socket.on('data', (c) => {
      buf += c.toString('latin1');
      if (buf.includes('\r\n\r\n')) {
        onRequest(socket, buf);
        buf = '';
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  t.teardown(() => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** One buyer call; resolves with status and body, or how it broke, and how long it took. */
function call(url: string): Promise<{ status?: number; body?: string; broken?: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const body = skillRequest('inventory.search');
    const req = http.request(`${url}/a2a`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), ms: Date.now() - started }));
      res.on('error', () => resolve({ status: res.statusCode, broken: true, ms: Date.now() - started }));
      res.on('aborted', () => resolve({ status: res.statusCode, broken: true, ms: Date.now() - started }));
    });
    req.on('error', () => resolve({ broken: true, ms: Date.now() - started }));
    req.end(body);
  });
}

const json = (n: number) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${n}\r\n\r\n`;

t.test('headers, then a stall: the reply is broken off at the upstream timeout', async (t) => {
  const dealer = await rawDealer(t, (s) => s.write(json(100) + '{"jsonrpc":'));
  const proxy = await startProxy({ target: dealer, port: 0, profile: '1.3', upstreamTimeoutMs: 300 });
  t.teardown(() => proxy.close());
  const got = await call(proxy.url);
  t.equal(got.status, 200, 'the head had already been passed on');
  t.ok(got.broken, 'the buyer sees a broken reply, not a hang');
  t.ok(got.ms < 5_000, `${got.ms} ms`);
});

t.test('reset mid-body: the buyer sees a broken reply at once', async (t) => {
  const dealer = await rawDealer(t, (s) => (s.write(json(100) + '{"jsonrpc":"2.0",'), setImmediate(() => s.resetAndDestroy())));
  const proxy = await startProxy({ target: dealer, port: 0, profile: '1.3' });
  t.teardown(() => proxy.close());
  const got = await call(proxy.url);
  t.ok(got.broken);
  t.ok(got.ms < 5_000);
});

t.test('invalid HTTP from the dealer: 502 with a JSON-RPC error', async (t) => {
  const dealer = await rawDealer(t, (s) => s.end('SMTP ready\r\nnot http at all\r\n\r\n'));
  const proxy = await startProxy({ target: dealer, port: 0, profile: '1.3' });
  t.teardown(() => proxy.close());
  const got = await call(proxy.url);
  t.equal(got.status, 502);
  t.equal(JSON.parse(got.body!).error.code, -32603);
});

t.test('a 5 MB reply passes through whole', async (t) => {
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { blob: 'v'.repeat(5 * 1024 * 1024) } });
  const dealer = await rawDealer(t, (s) => s.write(json(Buffer.byteLength(payload)) + payload));
  const proxy = await startProxy({ target: dealer, port: 0, profile: '1.3' });
  t.teardown(() => proxy.close());
  const got = await call(proxy.url);
  t.equal(got.status, 200);
  t.equal(got.body?.length, payload.length, 'every byte');
});

t.test('a missing or malformed agent card: auto falls back to 1.3 and says why', async (t) => {
  for (const [card, reason] of [
    ['HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n', /answered 404/],
    [json(9) + '{not json', /not valid JSON/],
    [json(2) + '{}', /names no AAP extension/],
  ] as const) {
    const dealer = await rawDealer(t, (s) => s.write(card));
    const logs: string[] = [];
    const rt = await startRuntime({ target: dealer, port: 0, adminPort: 0, env: {}, log: (l) => logs.push(l) });
    const status = rt.status();
    await rt.close();
    t.equal(status.profile, '1.3');
    t.equal(status.profile_origin, 'default');
    t.match(logs.join('\n'), /profile 1\.3 \(the default\): /);
    t.match(logs.join('\n'), reason);
  }
});
