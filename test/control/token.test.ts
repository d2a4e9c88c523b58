import t from 'tap';
import { WebSocket } from 'ws';
import { startRuntime } from '../../src/runtime.js';
import { bearerTokenMatches, isLoopbackHost } from '../../src/control/auth.js';
import { adminCall, startTestRuntime } from './control-fixture.js';

const TOKEN = 's3cret-token';

/** Resolves with the HTTP status the server answered a WebSocket upgrade with (101 when it opened). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/events`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

t.test('with a token, calls without it or with a wrong one get 401 JSON', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: TOKEN });
  const none = await adminCall(rt, 'GET', '/status');
  t.equal(none.status, 401);
  t.equal(none.headers['www-authenticate'], 'Bearer');
  t.match(none.json.error.message, /Authorization: Bearer/);
  const wrong = await adminCall(rt, 'GET', '/status', { token: 'guess' });
  t.equal(wrong.status, 401);
  const longer = await adminCall(rt, 'GET', '/status', { token: TOKEN + 'x' });
  t.equal(longer.status, 401, 'a longer token is not a prefix match');
  const right = await adminCall(rt, 'GET', '/status', { token: TOKEN });
  t.equal(right.status, 200);
});

t.test('with a token, the WebSocket upgrade needs it too', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: TOKEN });
  t.equal(await upgradeStatus(rt.adminUrl), 401);
  t.equal(await upgradeStatus(rt.adminUrl, { authorization: 'Bearer nope' }), 401);
  t.equal(await upgradeStatus(rt.adminUrl, { authorization: `Bearer ${TOKEN}` }), 101);
});

t.test('the token can come from AAP_CHAOS_ADMIN_TOKEN', async (t) => {
  const rt = await startTestRuntime(t, { env: { AAP_CHAOS_ADMIN_TOKEN: TOKEN } });
  t.equal((await adminCall(rt, 'GET', '/status')).status, 401);
  t.equal((await adminCall(rt, 'GET', '/status', { token: TOKEN })).status, 200);
});

t.test('on loopback without a token the API is open', async (t) => {
  const rt = await startTestRuntime(t);
  t.equal((await adminCall(rt, 'GET', '/status')).status, 200);
});

t.test('a non-loopback admin host without a token refuses to start', async (t) => {
  await t.rejects(startRuntime({ port: 0, adminPort: 0, adminHost: '0.0.0.0', env: {} }), {
    message: /refusing to start the admin API on 0\.0\.0\.0 without a token.*--admin-token.*AAP_CHAOS_ADMIN_TOKEN/s,
  });
});

t.test('loopback detection and the bearer comparison', async (t) => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) t.ok(isLoopbackHost(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com', '128.0.0.1']) t.notOk(isLoopbackHost(host), host);
  t.ok(bearerTokenMatches(`Bearer ${TOKEN}`, TOKEN));
  t.ok(bearerTokenMatches(`bearer ${TOKEN}`, TOKEN), 'the scheme is case-insensitive');
  t.notOk(bearerTokenMatches(TOKEN, TOKEN), 'the scheme is required');
  t.notOk(bearerTokenMatches(undefined, TOKEN));
});
