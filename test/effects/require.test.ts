// require: the AAP 2.0 header policy, decided without sockets and through the proxy.
import t from 'tap';
import { createRequireEffect } from '../../src/effects/require.js';
import { harness } from '../helpers/chaos-harness.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { classified, effectContext, loadedRule } from '../helpers/effect-context.js';

t.test('pure: unmet answers -32008 then -32009; met goes on to the dealer', async (t) => {
  const effect = createRequireEffect(loadedRule('rules:\n  - { id: p, require: { extension: true, version: "1.0" } }\n'));
  const uri = 'urn:x:aap';
  const decide = (headers: Record<string, string>) => effect.decide(effectContext({ extensionUri: uri, request: classified('inventory.search', headers) }));
  t.match(decide({ 'a2a-version': '1.0' }), { action: { envelope: { error: { code: -32008 } } }, explain: /extension not activated/ });
  t.match(decide({ 'a2a-extensions': uri }), { action: { envelope: { error: { code: -32009 } } }, explain: /A2A-Version absent/ });
  t.match(decide({ 'a2a-extensions': uri, 'a2a-version': '' }), { explain: /A2A-Version empty/ });
  t.equal(decide({ 'a2a-extensions': uri, 'a2a-version': '1.0' }), undefined, 'a request that meets the policy is not answered');
});

t.test('require: -32008 without the extension, -32009 for absent, empty or wrong versions, pass when met', async (t) => {
  const h = await harness(t, `rules:\n  - id: policy\n    require: { extension: true, version: "1.0" }\n`, {
    proxy: { profile: '2.0', extensionUri: 'https://draft.autoagentprotocol.invalid/extensions/aap/latest' },
  });
  const uri = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
  const missing = h.json(await h.call('inventory.search', {}, { headers: { 'a2a-version': '1.0' } }));
  t.equal(missing.error.code, -32008);
  t.same(missing.error.data[0].metadata, { extensionUri: uri, requiredHeader: 'A2A-Extensions' });
  for (const [name, headers] of [
    ['absent', {}],
    ['empty', { 'a2a-version': '' }],
    ['unsupported', { 'a2a-version': '0.3' }],
  ] as const) {
    const env = h.json(await h.call('inventory.search', {}, { headers: { ...headers, 'a2a-extensions': uri } }));
    t.equal(env.error.code, -32009, `${name} version → -32009`);
    t.same(envelopeProblems('2.0', env), []);
  }
  const ok = h.json(await h.call('inventory.search', {}, { headers: { 'a2a-version': '1.0', 'a2a-extensions': `other, ${uri}` } }));
  t.ok(ok.result, 'a request that meets the policy reaches the dealer');
});
