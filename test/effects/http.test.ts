// http: a raw reply that is not JSON-RPC, decided without sockets and through the proxy.
import t from 'tap';
import { createHttpEffect } from '../../src/effects/http.js';
import { harness } from '../helpers/chaos-harness.js';
import { effectContext, loadedRule } from '../helpers/effect-context.js';

t.test('pure: status, headers lower-cased, body', async (t) => {
  const effect = createHttpEffect(loadedRule('rules:\n  - { id: gw, http: { status: 502, headers: { Retry-After: 3 }, body: "<h1>Bad Gateway</h1>" } }\n'));
  const answer = effect.decide(effectContext())!;
  t.equal(answer.explain, 'HTTP 502 with a 20-byte body');
  t.match(answer.action, { type: 'reply', status: 502, headers: { 'retry-after': '3' } });
  if (answer.action.type === 'reply') t.equal(answer.action.body.toString(), '<h1>Bad Gateway</h1>');
  t.equal(createHttpEffect(loadedRule('rules:\n  - { id: e, http: { status: 200 } }\n')).explain(), 'HTTP 200 with an empty body');
});

t.test('http: raw non-JSON-RPC replies', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: gw\n    http: { status: 503, headers: { Retry-After: "7", content-type: text/html }, body: "<h1>Service Unavailable</h1>" }\n`,
  );
  const reply = await h.call('inventory.search');
  t.equal(reply.status, 503);
  t.equal(reply.headers['retry-after'], '7');
  t.equal(reply.body.toString(), '<h1>Service Unavailable</h1>');
});
