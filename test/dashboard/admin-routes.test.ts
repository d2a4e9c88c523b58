// What the dashboard needs from the admin API, over plain sockets: the page itself (without the
// token, with a strict Content-Security-Policy), the built-in list, "stop all faults" (dry run),
// the token as a WebSocket subprotocol, and the reply's error member in journal lines.
import { once } from 'node:events';
import t from 'tap';
import { WebSocket } from 'ws';
import { MAX_REPLY_ERROR_BYTES } from '../../src/journal/build-entry.js';
import { request, startUpstream } from '../helpers/servers.js';
import { adminCall, callSkill, startTestRuntime } from '../control/control-fixture.js';

t.test('GET / serves the page and its files without the token; the API still needs it', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: 'page-token' });
  const page = await request(`${rt.adminUrl}/`);
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.match(page.body.toString(), /<script type="module" src="\/dashboard\/app.js">/);
  t.match(page.headers['content-security-policy'], /default-src 'none'.*script-src 'self'.*connect-src 'self'/, 'only same-origin scripts and connections');
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  const script = await request(`${rt.adminUrl}/dashboard/app.js`);
  t.equal(script.status, 200);
  t.match(script.headers['content-type'], /^text\/javascript/);
  t.equal((await request(`${rt.adminUrl}/dashboard/missing.js`)).status, 404);
  t.equal((await request(`${rt.adminUrl}/dashboard/..%2Fserve.js`)).status, 401, 'nothing outside the page folder is served');
  t.equal((await adminCall(rt, 'GET', '/status')).status, 401, 'the data still needs the token');
});

t.test('GET /scenarios lists the built-ins', async (t) => {
  const rt = await startTestRuntime(t);
  const { status, json } = await adminCall(rt, 'GET', '/scenarios');
  t.equal(status, 200);
  t.ok(json.scenarios.length >= 5);
  t.match(
    json.scenarios.find((s: { name: string }) => s.name === 'rate-limit-storm'),
    { name: 'rate-limit-storm', description: String },
  );
});

t.test('PUT /dry-run stops every fault and resumes them', async (t) => {
  const rt = await startTestRuntime(t);
  const on = await adminCall(rt, 'PUT', '/dry-run', { body: '{"enabled": true}' });
  t.same([on.status, on.json], [200, { dry_run: true }]);
  t.equal((await adminCall(rt, 'GET', '/status')).json.dry_run, true);
  const dry = JSON.parse((await callSkill(rt.url, 'inventory.search', 'd1')).body.toString());
  t.ok(dry.result, 'the dealer answers');
  t.match(rt.journal.all().at(-1), { fired: ['throttle-search'], dry_run: true });
  const off = await adminCall(rt, 'PUT', '/dry-run', { body: '{"enabled": false}' });
  t.same(off.json, { dry_run: false });
  t.match(JSON.parse((await callSkill(rt.url, 'inventory.search', 'd2')).body.toString()), { error: { code: -32002 } }, 'faults apply again');

  const bad = await adminCall(rt, 'PUT', '/dry-run', { body: '{"enabled": "yes"}' });
  t.equal(bad.status, 400);
  t.match(bad.json.error.message, /\{"enabled": true\}/);
  t.equal((await adminCall(rt, 'POST', '/dry-run', { body: '{}' })).status, 405);
});

t.test('/events takes the token as a subprotocol, for browsers', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: 'ws token' });
  const url = `${rt.adminUrl.replace(/^http/, 'ws')}/events`;
  const encoded = Buffer.from('ws token').toString('base64url');

  const refused = new WebSocket(url, ['aap-chaos.events', `aap-chaos.token.${Buffer.from('nope').toString('base64url')}`]);
  const [, response] = await once(refused, 'unexpected-response');
  t.equal(response.statusCode, 401, 'a wrong token is refused');

  const ws = new WebSocket(url, ['aap-chaos.events', `aap-chaos.token.${encoded}`]);
  await once(ws, 'open');
  t.equal(ws.protocol, 'aap-chaos.events', 'the server selects the plain protocol: the token is not echoed');
  const message = once(ws, 'message');
  await callSkill(rt.url, 'dealer.information', 'w1');
  t.match(JSON.parse(String((await message)[0])), { rpc_id: 'w1' });
  ws.close();
});

t.test('journal lines keep the error member the buyer received, bounded', async (t) => {
  const rt = await startTestRuntime(t);
  const reply = JSON.parse((await callSkill(rt.url, 'inventory.search', 'j1')).body.toString());
  t.same(rt.journal.all().at(-1)!.reply_error, reply.error, 'an injected envelope, whole');
  await callSkill(rt.url, 'dealer.information', 'j2');
  t.notOk('reply_error' in rt.journal.all().at(-1)!, 'a success keeps nothing');

  const huge = 'x'.repeat(MAX_REPLY_ERROR_BYTES * 2);
  const dealer = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 'j3', error: { code: -32603, message: huge, data: { blob: huge } } }));
  });
  t.teardown(() => dealer.close());
  const behind = await startTestRuntime(t, { target: dealer.url, scenario: undefined });
  await callSkill(behind.url, 'dealer.information', 'j3');
  const kept = behind.journal.all().at(-1)!.reply_error!;
  t.equal(kept.code, -32603);
  t.ok(kept.message.length < 400, 'the message is shortened');
  t.notOk('data' in kept, 'the large data is left out');
  t.ok(kept.data_omitted_bytes! > MAX_REPLY_ERROR_BYTES, 'and its size named');
});
