// network: a broken transport, decided without sockets and through the proxy.
import t from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import { createNetworkEffect, DEFAULT_HANG_MS } from '../../src/effects/network.js';
import { harness } from '../helpers/chaos-harness.js';
import { skillRequest } from '../helpers/servers.js';
import { classified, effectContext, loadedRule } from '../helpers/effect-context.js';

t.test('pure: each form maps to one transport primitive', async (t) => {
  const action = (spec: string) =>
    createNetworkEffect(loadedRule(`rules:\n  - { id: n, network: ${spec} }\n`)).decide(effectContext({ request: classified('inventory.search', {}, 'abc') }))!
      .action;
  t.same(action('reset'), { type: 'reset' });
  t.same(action('hang'), { type: 'hang', maxMs: DEFAULT_HANG_MS });
  t.same(action('{ hang_ms: 150 }'), { type: 'hang', maxMs: 150 });
  t.same(action('{ truncate_bytes: 20 }'), { type: 'truncate', bytes: 20 });
  const bad = action('malformed_json');
  t.match(bad, { type: 'reply', status: 200, bodyKind: 'malformed_json', headers: { 'content-type': 'application/json' } });
  if (bad.type === 'reply') {
    t.match(bad.body.toString(), /^\{"jsonrpc":"2.0","id":"abc"/, 'starts like the reply to this request');
    t.throws(() => JSON.parse(bad.body.toString()));
  }
});

t.test('network: reset, malformed_json, truncate_bytes and a bounded hang', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: reset, match: { skill: dealer.information }, network: reset }\n  - { id: bad, match: { skill: inventory.facets }, network: malformed_json }\n  - { id: cut, match: { skill: inventory.search }, network: { truncate_bytes: 20 } }\n  - { id: hang, match: { skill: lead.submit }, network: { hang_ms: 150 } }\n`,
  );
  await t.rejects(h.call('dealer.information'), 'reset breaks the connection');
  const bad = await h.call('inventory.facets', {}, { id: 4 });
  t.equal(bad.status, 200);
  t.throws(() => JSON.parse(bad.body.toString()), 'malformed JSON does not parse');
  t.match(bad.body.toString(), /^\{"jsonrpc":"2.0","id":4/);
  const truncated = await new Promise<{ bytes: number; complete: boolean }>((resolve) => {
    const req = http.request(h.proxy.url + '/a2a', { method: 'POST', agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('close', () => resolve({ bytes, complete: res.complete }));
    });
    req.on('error', () => {});
    req.end(skillRequest('inventory.search'));
  });
  t.same(truncated, { bytes: 20, complete: false }, 'exactly 20 bytes, then a broken reply');
  const started = Date.now();
  await t.rejects(h.call('lead.submit'), 'a hang ends with a closed connection');
  t.ok(Date.now() - started >= 140, 'held for the bound');
});

t.test('network: hang releases everything when the buyer gives up', async (t) => {
  const h = await harness(t, `rules:\n  - { id: hang, network: hang }\n`);
  const arrived = once(h.proxy.proxy.server, 'request');
  const req = http.request(h.proxy.url + '/a2a', { method: 'POST', agent: false });
  req.on('error', () => {});
  req.end(skillRequest('inventory.search'));
  await arrived;
  await new Promise((r) => setImmediate(r));
  req.destroy();
  await t.resolves(
    (async () => {
      while (h.journal.length === 0) await new Promise((r) => setImmediate(r));
    })(),
  );
  t.equal(h.journal[0]!.aborted, true, 'journaled as abandoned by the buyer');
  t.equal((h.proxy.proxy.decider as any).activeFaults(), 0, 'its fault slot was released');
});
