import t from 'tap';
import { startProxy } from '../../src/proxy/server.js';
import { rewriteAgentCard, findAapExtension } from '../../src/protocol/agent-card.js';
import { request, startUpstream } from '../helpers/servers.js';

const card = (base: string) => ({
  name: 'Dealer',
  description: 'd',
  version: '1',
  supportedInterfaces: [
    { url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${base}/rest?x=1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { extensions: [{ uri: 'https://draft.autoagentprotocol.invalid/extensions/aap/latest', required: true }] },
  skills: [{ id: 'inventory.search', name: 'Search', description: 's', tags: ['x'] }],
});

t.test('v1.0 and v0.3 interface URLs point at the proxy; nothing else changes', async (t) => {
  const c = card('https://dealer.example');
  const out = rewriteAgentCard(c, 'http://127.0.0.1:9000');
  t.same(
    (out.supportedInterfaces as any[]).map((i) => i.url),
    ['http://127.0.0.1:9000/api/a2a', 'http://127.0.0.1:9000/rest?x=1'],
  );
  t.same({ ...out, supportedInterfaces: c.supportedInterfaces }, c, 'everything else identical');
  const legacy = rewriteAgentCard(
    { url: 'https://d.example/a2a', additionalInterfaces: [{ url: 'https://d.example/b', transport: 'JSONRPC' }], name: 'x' },
    'http://p:1',
  );
  t.same(legacy, { url: 'http://p:1/a2a', additionalInterfaces: [{ url: 'http://p:1/b', transport: 'JSONRPC' }], name: 'x' });
});

t.test('findAapExtension maps the URI to a profile', async (t) => {
  t.equal(findAapExtension(card('x'))?.profile, '2.0');
  t.equal(findAapExtension({ capabilities: { extensions: [{ uri: 'https://autoagentprotocol.org/extensions/aap/v1.3', required: true }] } })?.profile, '1.3');
  t.equal(findAapExtension({ capabilities: { extensions: [{ uri: 'https://autoagentprotocol.org/extensions/a2a-automotive-retail/v1.0' }] } })?.profile, '1.3');
  t.equal(findAapExtension({ capabilities: { extensions: [{ uri: 'https://autoagentprotocol.org/extensions/aap/v2.0' }] } })?.profile, '2.0');
  t.equal(findAapExtension({}), undefined);
});

t.test('through the proxy: the card is rewritten, calls to its URL reach the target path, profile auto follows it', async (t) => {
  let upstreamBase = '';
  const up = await startUpstream((req, res) => {
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(card(upstreamBase)));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  upstreamBase = up.url;
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  t.equal(proxy.proxy.profile.profile, '2.0', 'auto picked 2.0 from the dealer card at start');
  const reply = await request(proxy.url + '/.well-known/agent-card.json');
  const got = JSON.parse(reply.body.toString());
  t.equal(got.supportedInterfaces[0].url, `${proxy.url}/api/a2a`);
  t.equal(Number(reply.headers['content-length']), reply.body.length, 'content-length matches the rewritten body');
  const call = await request(got.supportedInterfaces[0].url, { body: '{}' });
  t.same(JSON.parse(call.body.toString()), { path: '/api/a2a' });
});

t.test('--no-rewrite-card passes the card untouched', async (t) => {
  let body = '';
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  body = JSON.stringify(card(up.url));
  const proxy = await startProxy({ target: up.url, port: 0, rewriteCard: false });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const reply = await request(proxy.url + '/.well-known/agent-card.json');
  t.equal(reply.body.toString(), body);
});

t.test('an option left undefined keeps the default: the card is still rewritten', async (t) => {
  let base = '';
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(card(base)));
  });
  base = up.url;
  const proxy = await startProxy({ target: up.url, port: 0, rewriteCard: undefined });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const got = JSON.parse((await request(proxy.url + '/.well-known/agent-card.json')).body.toString());
  t.equal(got.supportedInterfaces[0].url, `${proxy.url}/api/a2a`);
});

t.test("the rewritten card depends on the buyer's Host: Vary: Host, and private instead of public", async (t) => {
  let body = '';
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300, s-maxage=600', vary: 'Accept-Encoding' });
    res.end(body);
  });
  body = JSON.stringify(card(up.url));
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const reply = await request(proxy.url + '/.well-known/agent-card.json');
  t.equal(reply.headers['cache-control'], 'private, max-age=300', 'shared caches may not keep it; the buyer keeps the max-age');
  t.equal(reply.headers.vary, 'Accept-Encoding, Host');
  const again = await request(proxy.url + '/.well-known/agent-card.json', { headers: { 'if-none-match': String(reply.headers.etag) } });
  t.equal(again.status, 304);
  t.equal(again.headers['cache-control'], 'private, max-age=300', 'a revalidation says the same');
  t.equal(again.headers.vary, 'Accept-Encoding, Host');
});
