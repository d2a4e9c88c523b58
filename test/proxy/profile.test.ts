// The envelope profile follows the dealer's card (auto), a flag, or the loaded scenario.
import t from 'tap';
import { startChaos } from '../../src/index.js';
import { request, skillRequest } from '../helpers/servers.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';

const inject = (url: string) =>
  request(url + '/a2a', { body: skillRequest('inventory.search'), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
const errorScenario = (profile?: string) => ({
  scenario: 'x',
  ...(profile ? { profile } : {}),
  rules: [{ id: 'e', error: 'RATE_LIMITED', retry_after_ms: 10 }],
});

t.test('auto follows the dealer card: a 2.0 mock gives 2.0 envelopes', async (t) => {
  const chaos = await startChaos({ scenario: errorScenario() as never, mock: { profile: '2.0' } });
  t.teardown(() => chaos.close());
  t.equal(chaos.status().profile, '2.0');
  const env = JSON.parse((await inject(chaos.url)).body.toString());
  t.equal(env.error.code, -32000);
  t.same(envelopeProblems('2.0', env), []);
});

t.test('a scenario loaded later brings its own profile; --profile wins over every scenario', async (t) => {
  const chaos = await startChaos({ scenario: errorScenario() as never });
  t.teardown(() => chaos.close());
  t.equal(chaos.status().profile, '1.3');
  await chaos.use(errorScenario('2.0') as never);
  t.equal(chaos.status().profile, '2.0');
  t.same(envelopeProblems('2.0', JSON.parse((await inject(chaos.url)).body.toString())), []);
  await chaos.use(errorScenario('auto') as never);
  t.equal(chaos.status().profile, '1.3', 'auto: back to what the 1.3 mock card says');

  const pinned = await startChaos({ scenario: errorScenario() as never, profile: '1.3' });
  t.teardown(() => pinned.close());
  await pinned.use(errorScenario('2.0') as never);
  t.equal(pinned.status().profile, '1.3', 'the flag stays');
});
