// card: agent-card faults, planned without sockets and through the proxy.
import t from 'tap';
import { cardReplacement, CardHistory, faultCard } from '../../src/effects/card.js';
import { harness } from '../helpers/chaos-harness.js';
import { request } from '../helpers/servers.js';
import { planOf } from '../helpers/effect-context.js';

t.test('pure: a card plan, a replacement for malformed_json, and a patch that does not apply noted', async (t) => {
  const { plan, sentences } = planOf(['{ id: c, card: { patch: [{ op: replace, path: /name, value: Other }, { op: remove, path: /nope }] } }']);
  t.same(sentences, ['card: patch replace /name, remove /nope']);
  t.equal(plan.card?.patches.length, 1);
  t.equal(cardReplacement(plan.card!), undefined, 'a patch serves the card, changed');
  const notes: string[] = [];
  t.same(faultCard({ name: 'Dealer' }, plan.card!, new CardHistory(), notes), { name: 'Dealer' }, 'an operation list applies whole or not at all');
  t.match(notes, [/^card patch not applied: /]);
  const bad = planOf(['{ id: m, card: { malformed_json: true } }']).plan.card!;
  t.match(cardReplacement(bad), { status: 200, headers: { 'content-type': 'application/json' } });
});

t.test('card: the card a buyer fetches is patched; JSON-RPC calls are not touched', async (t) => {
  const card = { name: 'Dealer', supportedInterfaces: [{ url: 'http://dealer.invalid/a2a', protocolBinding: 'JSONRPC' }] };
  const h = await harness(t, 'rules:\n  - id: renamed\n    card: { patch: [{ op: replace, path: /name, value: Renamed } ] }\n', {
    dealer: (req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        req.url === '/.well-known/agent-card.json' ? JSON.stringify(card) : JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body.toString()).id, result: {} }),
      );
    },
  });
  const served = JSON.parse((await request(h.proxy.url + '/.well-known/agent-card.json')).body.toString());
  t.equal(served.name, 'Renamed');
  t.ok(served.supportedInterfaces[0].url.startsWith(h.proxy.url), 'its URLs still point at the proxy');
  t.ok(h.json(await h.call('inventory.search')).result);
  t.match(h.journal[0], { fired: ['renamed'], effects: ['card: patch replace /name'], faults: [{ rule: 'renamed', effect: 'card' }] });
  t.same(h.journal[1]!.fired, [], 'the card rule never meets another request');
});
