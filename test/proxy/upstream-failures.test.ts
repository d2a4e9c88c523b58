import t, { type Test } from 'tap';
import net from 'node:net';
import { startProxy, SOURCE_HEADER } from '../../src/proxy/server.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function expectUnreachable(t: Test, url: string, id: string | number, cause: RegExp) {
  const reply = await request(url + '/a2a', { body: skillRequest('inventory.search', {}, id), headers: { 'content-type': 'application/json' } });
  t.equal(reply.status, 502, 'HTTP 502');
  t.equal(reply.headers[SOURCE_HEADER], 'proxy', "marked as the proxy's own reply");
  const env = JSON.parse(reply.body.toString());
  t.equal(env.id, id, 'echoes the id with its type');
  t.equal(env.error.code, -32603);
  t.match(env.error.message, cause, 'message names the cause');
  t.same(envelopeProblems('1.3', env), [], 'a valid 1.3 envelope');
}

t.test('connection refused', async (t) => {
  const port = await freePort();
  const proxy = await startProxy({ target: `http://127.0.0.1:${port}`, port: 0, profile: '1.3' });
  t.teardown(() => proxy.close());
  await expectUnreachable(t, proxy.url, 'r-1', /ECONNREFUSED/);
  await expectUnreachable(t, proxy.url, 2, /refused/);
});

t.test('connection reset before a reply', async (t) => {
  const up = await startUpstream((req) => req.socket.destroy());
  const proxy = await startProxy({ target: up.url, port: 0, profile: '1.3' });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  await expectUnreachable(t, proxy.url, 3, /reset|ECONNRESET|UND_ERR_SOCKET|SocketError/);
});

t.test('a dealer slower than --upstream-timeout', async (t) => {
  const held: import('node:http').ServerResponse[] = [];
  const up = await startUpstream((req, res) => {
    if (req.url === '/a2a') held.push(res);
    else res.end('{}');
  });
  const proxy = await startProxy({ target: up.url, port: 0, profile: '1.3', upstreamTimeoutMs: 200 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  await expectUnreachable(t, proxy.url, 4, /did not answer within the upstream timeout/);
  const ok = await request(proxy.url + '/health', {});
  t.equal(ok.status, 200, 'the proxy keeps serving');
});
