// a2a_error: A2A protocol errors by name, decided without sockets and sent through the proxy.
import t from 'tap';
import { createA2aErrorEffect } from '../../src/effects/a2a-error.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { harness } from '../helpers/chaos-harness.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { effectContext, loadedRule } from '../helpers/effect-context.js';

t.test('pure: the code by name, the message override, and -32008 with its URI', async (t) => {
  const nf = createA2aErrorEffect(loadedRule('rules:\n  - { id: nf, a2a_error: TASK_NOT_FOUND, message: gone }\n')).decide(effectContext())!;
  t.equal(nf.explain, 'TASK_NOT_FOUND (-32001)');
  t.match(nf.action, { type: 'reply', status: 200, envelope: { error: { code: -32001, message: 'gone' } } });
  const ext = createA2aErrorEffect(loadedRule('rules:\n  - { id: ext, a2a_error: EXTENSION_SUPPORT_REQUIRED }\n')).decide(
    effectContext({ extensionUri: 'urn:x:aap' }),
  )!;
  t.match(ext.action, { envelope: { error: { code: -32008, message: /urn:x:aap/ } } });
});

t.test('a2a_error: A2A errors by name, -32008 never bare', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: nf\n    match: { skill: inventory.search }\n    a2a_error: TASK_NOT_FOUND\n  - id: ext\n    match: { skill: lead.submit }\n    a2a_error: EXTENSION_SUPPORT_REQUIRED\n`,
  );
  const nf = h.json(await h.call('inventory.search'));
  t.equal(nf.error.code, -32001);
  t.equal(nf.error.data[0].reason, 'TASK_NOT_FOUND');
  const ext = h.json(await h.call('lead.submit'));
  t.equal(ext.error.code, -32008);
  t.ok(ext.error.message.includes(AAP_EXTENSION_URI_1_3) && ext.error.message.includes('A2A-Extensions'));
  t.same(envelopeProblems('1.3', ext), []);
});
