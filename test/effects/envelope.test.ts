// envelope: faults of an error envelope's shape, applied without sockets and through the proxy.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { seedViolations } from '../helpers/seed-envelope-check.js';
import { planOf, stepContext } from '../helpers/effect-context.js';
import { runJsonSteps } from '../../src/proxy/reply-steps.js';

t.test('pure: rules combine into one step that also changes injected envelopes; a success is noted, not changed', async (t) => {
  const { plan, sentences } = planOf(['{ id: a, envelope: { shuffle: true } }', '{ id: b, envelope: { unknown_detail: true } }']);
  t.same(sentences, ['envelope: shuffled', 'envelope: unknown detail added']);
  t.equal(plan.json.length, 1, 'one step for both rules');
  t.equal(plan.json[0]!.onInjected, true);
  const notes: string[] = [];
  const error = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: { type: 'aap.error', code: 'INTERNAL_ERROR' } } };
  const changed = runJsonSteps(error, plan.json, stepContext({ profile: '1.3' }), notes) as typeof error;
  t.ok('x_unknown_field' in changed.error.data, 'both flags act');
  const success = { jsonrpc: '2.0', id: 1, result: {} };
  t.equal(runJsonSteps(success, plan.json, stepContext(), notes), success);
  t.match(notes, [/^envelope faults not applied: /]);
});

t.test('envelope: shuffled and padded data, synthesized and from the dealer', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: lossy\n    envelope: { shuffle: true, unknown_detail: true }\n  - id: err\n    match: { skill: inventory.search }\n    error: INTERNAL_ERROR\n`,
    { proxy: { profile: '2.0' } },
  );
  const env = h.json(await h.call('inventory.search'));
  const types = env.error.data.map((d: any) => d['@type']);
  t.same(
    types,
    [
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/example.chaos.UnknownDetail',
      'https://autoagentprotocol.org/extensions/aap/error',
      'type.googleapis.com/example.chaos.UnknownDetail',
    ],
    'ErrorInfo still leads, as the seed requires; the payload is neither where it was nor last, between two unknown entries',
  );
  t.same(seedViolations(env, '2.0'), [], 'the untidy envelope is still valid by the seed');
  t.ok(
    env.error.data.some((d: any) => d['@type'] === 'https://autoagentprotocol.org/extensions/aap/error' && d.code === 'INTERNAL_ERROR'),
    'the AAP payload is still findable by @type',
  );
  const dealerOwn = await harness(t, `rules:\n  - id: lossy\n    envelope: { unknown_detail: true }\n`, {
    proxy: { profile: '1.3' },
    dealer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: { type: 'aap.error', code: 'VEHICLE_NOT_FOUND' } } }));
    },
  });
  const own = dealerOwn.json(await dealerOwn.call('inventory.vehicle'));
  t.equal(own.error.data.code, 'VEHICLE_NOT_FOUND');
  t.ok('x_unknown_field' in own.error.data, "1.3: unknown fields added to the dealer's own payload");
  t.equal(dealerOwn.journal[0]!.error_code, 'VEHICLE_NOT_FOUND', "the journal names the dealer's own error");
});
