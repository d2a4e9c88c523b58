// The mock dealer signs its agent card (`aap-chaos mock --sign-card FILE`, and --mock-sign-card
// for the embedded mock behind the proxy), so card trust can be exercised without a real dealer:
// the @a2a-js/sdk client verifies the card against the JWKS the mock (or the proxy) serves.
import t from 'tap';
import { startMockDealer } from '../../src/mock/index.js';
import { startRuntime } from '../../src/runtime.js';
import { CARD_JWKS_PATH } from '../../src/protocol/card-signature.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { cli } from '../helpers/cli-run.js';
import { keyFile, sdkVerifierFromJwks } from '../helpers/card-signing.js';

t.test('startMockDealer({ signCard }): the SDK verifies the card against the mock JWKS and calls a skill', async (t) => {
  const { file } = await keyFile(t, 'EdDSA', 'jwk', { kid: 'mock-key' });
  const mock = await startMockDealer({ port: 0, signCard: file });
  t.teardown(() => mock.close());
  const buyer = await createBuyer(mock.url);
  const sdk = sdkVerifierFromJwks(mock.url + CARD_JWKS_PATH);
  await t.resolves(buyer.getAgentCard(undefined, sdk.verify as never));
  t.same(sdk.asked, ['mock-key'], "the JWK file's own kid");
  t.ok((await sendSkill(buyer, 'dealer.information')).ok);
});

t.test('the embedded mock behind the proxy signs with --mock-sign-card, and the proxy signs the card it serves with the same key', async (t) => {
  const { file } = await keyFile(t, 'ES256');
  const lines: string[] = [];
  const runtime = await startRuntime({ port: 0, adminPort: 0, mock: { signCard: file }, log: (l) => lines.push(l) });
  t.teardown(() => runtime.close());
  const buyer = await createBuyer(runtime.url);
  const sdk = sdkVerifierFromJwks(runtime.url + CARD_JWKS_PATH);
  const card = await buyer.getAgentCard(undefined, sdk.verify as never);
  t.equal(card.supportedInterfaces[0]!.url, `${runtime.url}/a2a`, 'through the proxy');
  t.equal(card.signatures.length, 1, "the mock's signature, broken by the rewrite, was replaced by the proxy's");
  t.match(
    lines.join('\n'),
    new RegExp(
      `agent cards signed with the embedded mock's key \\(--mock-sign-card ${file}\\) \\(ES256, kid \\S+\\); public key at ${runtime.url}${CARD_JWKS_PATH}`,
    ),
  );
  t.equal(runtime.journal.all().find((e) => e.path === '/.well-known/agent-card.json')!.card_signatures, 'signed');
});

t.test('several embedded mocks sign with the one key; the JWKS is at the listener root and under each dealer', async (t) => {
  const { file } = await keyFile(t, 'ES256');
  const runtime = await startRuntime({ port: 0, adminPort: 0, mockDealers: 2, mock: { signCard: file } });
  t.teardown(() => runtime.close());
  for (const base of Object.values(runtime.dealerUrls!)) {
    const buyer = await createBuyer(base);
    const sdk = sdkVerifierFromJwks(runtime.url + CARD_JWKS_PATH);
    const card = await buyer.getAgentCard(undefined, sdk.verify as never);
    t.equal(card.supportedInterfaces[0]!.url, `${base}a2a`, `${base}: the card points at this dealer on the proxy`);
    const underDealer = await (await fetch(new URL(CARD_JWKS_PATH.slice(1), base))).json();
    t.same(underDealer, await (await fetch(runtime.url + CARD_JWKS_PATH)).json(), 'the same JWKS under the dealer');
  }
});

t.test('aap-chaos mock --sign-card names the JWKS; a bad key file is one line and exit 2', async (t) => {
  const { file } = await keyFile(t, 'RS256');
  const ok = await cli(['mock', '--port', '0', '--sign-card', file], { killWhenOut: 'public key at' });
  t.match(ok.out, /agent card signed \(RS256, kid \S+\); public key at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/aap-chaos\/jwks\.json/);
  const bad = await cli(['mock', '--port', '0', '--sign-card', '/no/such/key.pem'], { killWhenOut: 'mock dealer' });
  t.equal(bad.code, 2);
  t.equal(bad.err.trim(), 'aap-chaos: --sign-card: /no/such/key.pem no such file');
});
