// patch: RFC 6902 steps on the dealer's JSON, applied without sockets and through the proxy.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { planOf, stepContext } from '../helpers/effect-context.js';
import { runJsonSteps } from '../../src/proxy/reply-steps.js';

t.test('pure: one step per rule, in order; a list that does not apply is noted, the others still apply', async (t) => {
  const { plan, sentences } = planOf([
    '{ id: a, patch: [{ op: replace, path: /result/n, value: 2 }] }',
    '{ id: b, patch: [{ op: replace, path: /nope/0, value: 1 }] }',
    '{ id: c, patch: [{ op: add, path: /result/m, value: 3 }] }',
  ]);
  t.same(sentences, ['patch: replace /result/n', 'patch: replace /nope/0', 'patch: add /result/m']);
  t.same(
    plan.json.map((s) => [s.effect, s.onInjected]),
    [
      ['patch', false],
      ['patch', false],
      ['patch', false],
    ],
    'never on an injected envelope',
  );
  const notes: string[] = [];
  t.same(runJsonSteps({ result: { n: 1 } }, plan.json, stepContext(), notes), { result: { n: 2, m: 3 } });
  t.equal(notes.length, 1);
  t.match(notes[0], /^patch not applied: /);
});

t.test('pure: patches run before envelope faults whatever the rule order', async (t) => {
  const { plan } = planOf(['{ id: e, envelope: { unknown_detail: true } }', '{ id: p, patch: [{ op: add, path: /x, value: 1 }] }']);
  t.same(
    plan.json.map((s) => s.effect),
    ['patch', 'envelope'],
  );
});

t.test('patch: the dealer reply rewritten; a patch that does not apply is noted and the reply passes', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: churn\n    match: { skill: inventory.search }\n    patch:\n      - { op: replace, path: /result/message/parts/0/data/data/vehicles/0/status, value: pending }\n  - id: broken\n    match: { skill: inventory.facets }\n    patch:\n      - { op: replace, path: /result/nope/0, value: 1 }\n`,
  );
  const env = h.json(await h.call('inventory.search'));
  t.equal(env.result.message.parts[0].data.data.vehicles[0].status, 'pending');
  const untouched = h.json(await h.call('inventory.facets'));
  t.equal(untouched.result.message.parts[0].data.data.vehicles[0].status, 'available');
  t.match(h.journal[1]!.notes?.[0], /patch not applied/);
});
