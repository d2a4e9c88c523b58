// Pass-through (pass-through.ts, over undici) on real sockets: keep-alive reuse and when a socket
// is not reused, replies without a body, informational replies, close-delimited bodies,
// backpressure from a slow buyer, a buyer that leaves, pipelined buyer requests, and a dealer
// that dies, goes quiet or refuses connections.
import t, { type Test } from 'tap';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { startProxy, type ProxyOptions } from '../../src/proxy/server.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { request, skillRequest, startUpstream, waitFor, type Upstream } from '../helpers/servers.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const SUCCESS = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { message: { role: 'ROLE_AGENT', parts: [] } } });

/** A dealer that remembers which socket carried each request to /a2a (the proxy also reads the card at start). */
async function dealer(t: Test, handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<Upstream & { sockets: Socket[] }> {
  const sockets: Socket[] = [];
  let n = 0;
  const up = await startUpstream((req, res) => {
    if (req.url !== '/a2a' && req.url !== '/other') return void res.writeHead(404).end();
    if (!sockets.includes(req.socket)) sockets.push(req.socket);
    handler(req, res, n++);
  });
  t.teardown(() => up.close());
  return Object.assign(up, { sockets });
}

async function proxyFor(t: Test, target: string, opts: Partial<ProxyOptions> = {}) {
  const proxy = await startProxy({ target, port: 0, profile: '1.3', ...opts });
  const journal: JournalEntry[] = [];
  proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
  t.teardown(() => proxy.close());
  return { ...proxy, journal };
}

const post = (url: string, headers: Record<string, string> = {}) =>
  request(`${url}/a2a`, { body: skillRequest('inventory.search'), headers: { ...JSON_TYPE, ...headers } });

t.test('one socket carries request after request while the dealer keeps it alive', async (t) => {
  const up = await dealer(t, (_req, res) => res.writeHead(200, JSON_TYPE).end(SUCCESS));
  const proxy = await proxyFor(t, up.url);
  for (let i = 0; i < 5; i++) t.equal((await post(proxy.url)).body.toString(), SUCCESS, `request ${i + 1} answered`);
  t.equal(up.sockets.length, 1, 'all five on one socket');
});

t.test("a reply whose last chunk fills the buyer's socket leaves its socket readable for the next reply", async (t) => {
  // 2 MB: the buyer's socket is full when the dealer's last chunk arrives, so the dealer's socket
  // was paused at the end of the reply; the next request on it must still be answered.
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(2 * 1024 * 1024) } });
  const up = await dealer(t, (_req, res, n) => res.writeHead(200, JSON_TYPE).end(n === 0 ? big : SUCCESS));
  const proxy = await proxyFor(t, up.url, { upstreamTimeoutMs: 5_000 });
  t.equal((await post(proxy.url)).body.length, Buffer.byteLength(big), 'the large reply arrives whole');
  t.equal((await post(proxy.url)).body.toString(), SUCCESS, 'the next request on the same socket is answered');
  t.equal(up.sockets.length, 1, 'one socket carried both');
  t.notOk(
    proxy.journal.some((e) => e.status !== 200),
    'no timeout',
  );
});

t.test('a reply with Connection: close retires its socket', async (t) => {
  const up = await dealer(t, (_req, res, n) => res.writeHead(200, { ...JSON_TYPE, ...(n === 0 ? { connection: 'close' } : {}) }).end(SUCCESS));
  const proxy = await proxyFor(t, up.url);
  await post(proxy.url);
  const first = up.sockets[0]!;
  if (!first.destroyed) await once(first, 'close');
  await post(proxy.url);
  await post(proxy.url);
  t.equal(up.sockets.length, 2, 'the second request opened a new socket, the third reused it');
});

t.test("an idle socket is let go before the dealer's Keep-Alive timeout, less two seconds", async (t) => {
  // The socket is idle from the moment the dealer's reply left, which the proxy reads only after:
  // timed from the test's own await of the reply, a busy machine made the idle time look shorter.
  let idleSince = 0;
  const up = await dealer(t, (_req, res) => {
    res.once('finish', () => (idleSince = performance.now()));
    res.writeHead(200, JSON_TYPE).end(SUCCESS);
  });
  // Advertised as `Keep-Alive: timeout=3`: the proxy keeps the socket for 1 s at most.
  up.server.keepAliveTimeout = 3_000;
  const proxy = await proxyFor(t, up.url);
  await post(proxy.url);
  const socket = up.sockets[0]!;
  let endedByProxy = false;
  socket.once('end', () => (endedByProxy = true));
  await once(socket, 'close');
  const idleMs = performance.now() - idleSince;
  t.ok(endedByProxy, 'the proxy closed it');
  t.ok(idleMs >= 950 && idleMs < 2_900, `after ${Math.round(idleMs)} ms idle (limit 1000 ms, swept each second)`);
  await post(proxy.url);
  t.equal(up.sockets.length, 2, 'the next request opened a new socket');
});

t.test('a Keep-Alive timeout of two seconds or less is not worth keeping a socket for', async (t) => {
  const up = await dealer(t, (_req, res) => res.writeHead(200, { ...JSON_TYPE, 'keep-alive': 'timeout=2' }).end(SUCCESS));
  const proxy = await proxyFor(t, up.url);
  await post(proxy.url);
  await post(proxy.url);
  t.equal(up.sockets.length, 2, 'one socket each');
});

t.test('replies without a body (204, 304, a HEAD) end at their head; a HEAD retires its socket, as undici does', async (t) => {
  const up = await dealer(t, (req, res, n) => {
    if (req.method === 'HEAD') return void res.writeHead(200, { ...JSON_TYPE, 'content-length': 1234 }).end();
    if (n === 0) return void res.writeHead(204).end();
    if (n === 1) return void res.writeHead(304, { etag: '"v1"' }).end();
    res.writeHead(200, JSON_TYPE).end(SUCCESS);
  });
  const proxy = await proxyFor(t, up.url);
  t.equal((await post(proxy.url)).status, 204);
  const notModified = await post(proxy.url);
  t.same([notModified.status, notModified.headers.etag, notModified.body.length], [304, '"v1"', 0]);
  t.equal((await post(proxy.url)).body.toString(), SUCCESS);
  t.equal(up.sockets.length, 1, 'the socket carried on after the 204 and the 304');
  const head = await request(`${proxy.url}/a2a`, { method: 'HEAD' });
  t.same([head.status, head.headers['content-length'], head.body.length], [200, '1234', 0], "the HEAD's headers, no body");
  t.equal(up.seen.at(-1)!.headers.connection, 'close', 'the HEAD asked the dealer to close');
  t.equal((await post(proxy.url)).body.toString(), SUCCESS);
  t.equal(up.sockets.length, 2, 'the request after the HEAD went on a new socket');
});

t.test('informational replies (102, 103) are skipped; the final reply goes through', async (t) => {
  const up = await dealer(t, (_req, res) => {
    res.writeProcessing();
    res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    setTimeout(() => res.writeHead(200, JSON_TYPE).end(SUCCESS), 10);
  });
  const proxy = await proxyFor(t, up.url);
  const reply = await post(proxy.url);
  t.same([reply.status, reply.body.toString()], [200, SUCCESS]);
  t.equal(reply.headers.link, undefined, "an early hint's headers are not the final reply's");
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { status: 200, upstream_status: 200, source: 'dealer' });
  t.equal((await post(proxy.url)).status, 200);
  t.equal(up.sockets.length, 1, 'the socket is reused after a reply that had informational ones');
});

t.test("an unsolicited 100 Continue from the dealer: undici refuses the exchange, the buyer gets the proxy's 502", async (t) => {
  const up = await dealer(t, (_req, res) => {
    res.writeContinue();
    setTimeout(() => res.writeHead(200, JSON_TYPE).end(SUCCESS), 10);
  });
  const proxy = await proxyFor(t, up.url);
  const reply = await post(proxy.url);
  t.equal(reply.status, 502);
  t.match(JSON.parse(reply.body.toString()), { error: { data: { code: 'INTERNAL_ERROR', details: { source: 'aap-chaos' } } } });
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { status: 502, source: 'proxy' });
});

t.test('a body delimited by the close of the connection arrives whole', async (t) => {
  const body = 'x'.repeat(100_000);
  const up = await dealer(t, (_req, res, n) => {
    if (n > 0) return void res.writeHead(200, JSON_TYPE).end(SUCCESS);
    res.socket!.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n');
    res.socket!.write(body.slice(0, 50_000));
    setTimeout(() => res.socket!.end(body.slice(50_000)), 10);
  });
  const proxy = await proxyFor(t, up.url);
  const reply = await post(proxy.url);
  t.same([reply.status, reply.body.toString() === body], [200, true], 'every byte, up to the close');
  t.equal((await post(proxy.url)).body.toString(), SUCCESS, 'and the next request goes on a new socket');
  t.equal(up.sockets.length, 2);
});

t.test('a dealer that dies mid-reply: the buyer sees a broken response, the socket is gone', async (t) => {
  const up = await dealer(t, (_req, res, n) => {
    if (n > 0) return void res.writeHead(200, JSON_TYPE).end(SUCCESS);
    res.writeHead(200, { ...JSON_TYPE, 'content-length': 1000 });
    res.write(SUCCESS.slice(0, 10));
    setTimeout(() => res.socket!.destroy(), 10);
  });
  const proxy = await proxyFor(t, up.url);
  await t.rejects(post(proxy.url), 'the buyer gets a broken response');
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { status: 200, aborted: true, unknown_cause: 'truncated' });
  t.equal((await post(proxy.url)).status, 200, 'the proxy keeps serving');
});

t.test('a dealer that goes quiet mid-body past --upstream-timeout: the buyer sees a broken response, the journal says why', async (t) => {
  const up = await dealer(t, (_req, res) => {
    res.writeHead(200, { ...JSON_TYPE, 'content-length': 1000 });
    res.write(SUCCESS.slice(0, 10));
  });
  const proxy = await proxyFor(t, up.url, { upstreamTimeoutMs: 200 });
  const started = performance.now();
  await t.rejects(post(proxy.url));
  const ms = performance.now() - started;
  t.ok(ms >= 195 && ms < 1_000, `ended after ${Math.round(ms)} ms`);
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { aborted: true, unknown_cause: 'proxy_timeout' });
  t.match(proxy.journal[0]!.notes?.join(' '), /did not answer within the upstream timeout \(UND_ERR_BODY_TIMEOUT\)/);
  const socket = up.sockets[0]!;
  if (!socket.destroyed) await once(socket, 'close');
  t.pass("the dealer's socket was closed, not reused");
});

t.test('a slow buyer pauses the dealer, and is not taken for a slow dealer', async (t) => {
  const total = 32 * 1024 * 1024;
  const chunk = Buffer.alloc(256 * 1024, 'a');
  let written = 0;
  let waitingSince: number | undefined;
  const up = await dealer(t, async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
    while (written < total) {
      written += chunk.length;
      if (!res.write(chunk)) {
        waitingSince = performance.now();
        await once(res, 'drain');
        waitingSince = undefined;
      }
    }
    res.end();
  });
  // A body gap of 300 ms would end the reply if time spent waiting for the buyer counted.
  const proxy = await proxyFor(t, up.url, { upstreamTimeoutMs: 300 });
  const buyer = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
  buyer.pause();
  const body = skillRequest('inventory.search');
  buyer.write(`POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
  // The dealer is held back: it has been waiting for room for twice the upstream timeout.
  await waitFor(() => waitingSince !== undefined && performance.now() - waitingSince > 600, 20_000);
  t.ok(written < total / 2, `the dealer could write ${(written / 2 ** 20).toFixed(1)} MiB of 32 while the buyer read nothing`);
  let received = 0;
  buyer.on('data', (c: Buffer) => (received += c.length));
  buyer.resume();
  await once(buyer, 'end');
  t.ok(received > total, 'the whole reply reached the buyer');
  await waitFor(() => proxy.journal.length === 1);
  t.notOk(proxy.journal[0]!.aborted, 'journaled as complete');
  t.not(proxy.journal[0]!.unknown_cause, 'proxy_timeout', 'with no timeout');
  t.same(proxy.journal[0]!.notes ?? [], [], 'and nothing to note');
});

t.test('a buyer that leaves cancels the dealer call: its socket is closed, never reused', async (t) => {
  let replied = 0;
  const up = await dealer(t, (_req, res, n) => {
    if (n === 0) {
      res.writeHead(200, JSON_TYPE);
      res.write('{"jsonrpc":');
      return;
    }
    replied++;
    res.writeHead(200, JSON_TYPE).end(SUCCESS);
  });
  const proxy = await proxyFor(t, up.url);
  await new Promise<void>((resolve) => {
    const req = http.request(`${proxy.url}/a2a`, { method: 'POST', headers: JSON_TYPE, agent: false }, (res) => {
      res.once('data', () => req.destroy());
      res.on('error', () => {});
      res.on('close', resolve);
    });
    req.on('error', () => {});
    req.end(skillRequest('inventory.search'));
  });
  const first = up.sockets[0]!;
  if (!first.destroyed) await once(first, 'close');
  t.pass("the dealer's socket closed when the buyer left");
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { aborted: true });
  t.equal((await post(proxy.url)).body.toString(), SUCCESS);
  t.same([replied, up.sockets.length], [1, 2], 'the next request went on a new socket');
});

t.test('a buyer that leaves before the dealer answers: the dealer call is cancelled too', async (t) => {
  const up = await dealer(t, () => {});
  const proxy = await proxyFor(t, up.url);
  const req = http.request(`${proxy.url}/a2a`, { method: 'POST', headers: JSON_TYPE, agent: false });
  req.on('error', () => {});
  req.end(skillRequest('inventory.search'));
  await waitFor(() => up.sockets.length === 1);
  req.destroy();
  await once(up.sockets[0]!, 'close');
  t.pass("the dealer's socket closed");
  await waitFor(() => proxy.journal.length === 1);
  t.match(proxy.journal[0], { aborted: true, status: 0 });
});

t.test('pipelined buyer requests: each exchange takes its own socket, the replies come back in order', async (t) => {
  const up = await dealer(t, (req, res, n) => {
    const id = JSON.parse(String(up.seen.at(-1)!.body)).id;
    // The first is answered last: the buyer's connection still gets the replies in order.
    setTimeout(() => res.writeHead(200, JSON_TYPE).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} })), n === 0 ? 100 : 0);
    void req;
  });
  const proxy = await proxyFor(t, up.url);
  const buyer = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
  let text = '';
  buyer.on('data', (c: Buffer) => (text += c.toString('latin1')));
  const body = (id: number) => skillRequest('inventory.search', {}, id);
  const requestFor = (id: number, last: boolean) =>
    `POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${last ? 'connection: close\r\n' : ''}content-length: ${body(id).length}\r\n\r\n${body(id)}`;
  buyer.write(requestFor(1, false) + requestFor(2, true));
  await once(buyer, 'close');
  const ids = [...text.matchAll(/"id":(\d)/g)].map((m) => Number(m[1]));
  t.same(ids, [1, 2], 'the replies in the order of the requests');
  t.equal(up.sockets.length, 2, 'the second went to the dealer on its own socket while the first was pending');
});

t.test('the end-to-end headers of the reply go to the buyer, repeated ones and long heads whole, hop-by-hop ones not', async (t) => {
  const up = await dealer(t, (_req, res) => {
    res.writeHead(
      200,
      [
        ['Content-Type', 'application/json'],
        ['X-Mixed-Case', 'kept'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
        ['Connection', 'X-Private'],
        ['X-Private', 'hop'],
        ['Proxy-Authenticate', 'Basic'],
        // More lines than llhttp hands over in one callback (32).
        ...Array.from({ length: 40 }, (_, i) => [`x-many-${i}`, String(i)]),
      ].flat(),
    );
    res.end(SUCCESS);
  });
  const proxy = await proxyFor(t, up.url);
  const port = Number(new URL(proxy.url).port);
  const buyer = net.connect(port, '127.0.0.1');
  let text = '';
  buyer.on('data', (c: Buffer) => (text += c.toString('latin1')));
  const body = skillRequest('inventory.search');
  buyer.write(`POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
  await once(buyer, 'close');
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  t.match(head, /\r\nx-mixed-case: kept\r\n/i, 'an unknown header');
  t.equal(head.match(/\r\nSet-Cookie: /gi)?.length, 2, 'both cookies');
  t.notMatch(head, /X-Private/i, 'a header the Connection header names is not forwarded');
  t.notMatch(head, /Proxy-Authenticate/i, 'nor a hop-by-hop one');
  t.equal(head.match(/\r\nx-many-\d+: \d+/g)?.length, 40, 'a long head arrives whole');
});

t.test('unsolicited bytes on an idle socket retire it; the next request goes on a new one', async (t) => {
  const up = await dealer(t, (_req, res, n) => {
    res.writeHead(200, JSON_TYPE).end(SUCCESS);
    if (n === 0) res.once('finish', () => setTimeout(() => res.socket?.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'), 20));
  });
  const proxy = await proxyFor(t, up.url);
  await post(proxy.url);
  const first = up.sockets[0]!;
  await once(first, 'close');
  t.pass('the proxy closed the socket that spoke out of turn');
  t.equal((await post(proxy.url)).body.toString(), SUCCESS);
  t.equal(up.sockets.length, 2);
});

t.test('a dealer that refuses connections: the same 502 as ever', async (t) => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const proxy = await proxyFor(t, `http://127.0.0.1:${port}`);
  const reply = await post(proxy.url);
  t.equal(reply.status, 502);
  t.match(JSON.parse(reply.body.toString()).error.message, /connection refused by http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
});
