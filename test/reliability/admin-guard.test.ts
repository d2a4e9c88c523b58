// The admin API cannot be driven by a web page: DNS rebinding (foreign Host), cross-site requests
// (foreign Origin, simple content types) and cross-site WebSockets are refused; a page served by
// the admin listener itself still works.
import t from 'tap';
import { WebSocket } from 'ws';
import { request } from '../helpers/servers.js';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';

t.test('a Host that is not loopback or the admin host is refused (DNS rebinding)', async (t) => {
  const rt = await startTestRuntime(t);
  const port = new URL(rt.adminUrl).port;
  for (const path of ['/status', '/journal', '/metrics']) {
    const reply = await request(rt.adminUrl + path, { headers: { host: `evil.example:${port}` } });
    t.equal(reply.status, 421, `${path} refused`);
    t.match(JSON.parse(reply.body.toString()).error.message, /Host "evil\.example:\d+" is not this admin API/);
  }
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `dash.localhost:${port}`])
    t.equal((await request(rt.adminUrl + '/status', { headers: { host } })).status, 200, `${host} accepted`);
});

t.test('a cross-site POST /reset with text/plain is refused and resets nothing', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const crossSite = await request(rt.adminUrl + '/reset', {
    method: 'POST',
    headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
    body: '{}',
  });
  t.equal(crossSite.status, 403);
  t.match(JSON.parse(crossSite.body.toString()).error.message, /Origin "http:\/\/evil\.example"/);
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const simple = await request(rt.adminUrl + '/reset', { method: 'POST', headers: { 'content-type': type }, body: 'a=1' });
    t.equal(simple.status, 415, `${type} refused even without an Origin`);
  }
  const bare = await request(rt.adminUrl + '/reset', { method: 'POST' });
  t.equal(bare.status, 415, 'no content type at all is refused');
  t.equal(rt.journal.all().length, 1, 'the journal was not cleared');
  const nullOrigin = await request(rt.adminUrl + '/status', { headers: { origin: 'null' } });
  t.equal(nullOrigin.status, 403, 'a sandboxed page (Origin: null) is refused on GET too');
  const fetchSite = await request(rt.adminUrl + '/journal', { headers: { 'sec-fetch-site': 'cross-site' } });
  t.equal(fetchSite.status, 403, 'Sec-Fetch-Site: cross-site is refused');
});

t.test('a same-origin page may read and change state with JSON or YAML', async (t) => {
  const rt = await startTestRuntime(t);
  const origin = rt.adminUrl;
  const headers = { origin, 'sec-fetch-site': 'same-origin' };
  t.equal((await request(rt.adminUrl + '/status', { headers })).status, 200);
  const reset = await request(rt.adminUrl + '/reset', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
  t.equal(reset.status, 200);
  const put = await request(rt.adminUrl + '/scenario', {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/yaml; charset=utf-8' },
    body: 'scenario: page\nrules: []\n',
  });
  t.equal(put.status, 200);
});

function openWs(url: string, origin?: string): Promise<{ open: boolean; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/events`, origin ? { origin } : {});
    ws.once('open', () => {
      ws.close();
      resolve({ open: true });
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve({ open: false, status: res.statusCode });
      res.resume();
    });
    ws.once('error', () => resolve({ open: false }));
  });
}

t.test('the /events WebSocket refuses a foreign Origin and accepts its own', async (t) => {
  const rt = await startTestRuntime(t);
  t.same(await openWs(rt.adminUrl, 'http://evil.example'), { open: false, status: 403 });
  t.same(await openWs(rt.adminUrl, rt.adminUrl), { open: true });
  t.same(await openWs(rt.adminUrl), { open: true }, 'a non-browser client sends no Origin');
});
