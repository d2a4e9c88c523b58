// Signed agent cards end to end, with @a2a-js/sdk on both sides: a dealer signs its card with
// generateAgentCardSignature; through the proxy the SDK client's getAgentCard(…, verifier) accepts
// the card the proxy signed (--card-signing-key, key from the proxy's JWKS) and calls a skill;
// without a key the card served carries no broken signature and the journal says so;
// --no-rewrite-card keeps the dealer's signature; each signature fault is refused as named.
import t, { type Test } from 'tap';
import { decodeProtectedHeader } from 'jose';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { startProxy, type ProxyOptions } from '../../src/proxy/server.js';
import { startRuntime } from '../../src/runtime.js';
import { createEngine } from '../../src/engine/engine.js';
import { loadScenarioText, formatProblem } from '../../src/scenario/load.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { loadCardSigningKey } from '../../src/common/card-key-file.js';
import { verifyCardSignatures } from '../../src/protocol/card-verify.js';
import { CARD_JWKS_PATH } from '../../src/protocol/card-signature.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { request, startUpstream } from '../helpers/servers.js';
import { keyFile, sdkVerifierFromJwks, startSdkSigningDealer, type KeyKind } from '../helpers/card-signing.js';

const CARD = '/.well-known/agent-card.json';
// The SDK's verifier logs each refused entry with console.debug; the assertions say what matters.
console.debug = () => {};

async function proxyFor(t: Test, target: string, opts: Partial<ProxyOptions> & { scenario?: string } = {}) {
  const journal: JournalEntry[] = [];
  const said: string[] = [];
  const proxy = await startProxy({ target, port: 0, log: (line) => said.push(line), ...opts });
  if (opts.scenario) {
    const loaded = loadScenarioText(opts.scenario, 'signatures.yaml');
    if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
    proxy.proxy.decider = createEngine(loaded.scenario, { seed: 1 });
  }
  proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
  t.teardown(() => proxy.close());
  return { proxy, journal, said };
}

/** The dealer's own key, as the SDK verifier's key lookup. */
const dealerKeyVerifier = (dealer: { kid: string; publicKey: unknown }) =>
  verifyAgentCardSignature(async (kid) => {
    if (kid !== dealer.kid) throw new Error(`unknown kid ${kid}`);
    return dealer.publicKey as never;
  });

t.test("fetched directly, the SDK accepts the dealer's signed card", async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const card = JSON.parse((await request(dealer.url + CARD)).body.toString());
  await t.resolves(dealerKeyVerifier(dealer)(card));
});

for (const [kind, format] of [
  ['ES256', 'pem'],
  ['EdDSA', 'jwk'],
  ['RS256', 'pem'],
] as [KeyKind, 'pem' | 'jwk'][]) {
  t.test(`--card-signing-key (${kind}, ${format}): the SDK verifies the card the proxy signed, then calls inventory.search through it`, async (t) => {
    const dealer = await startSdkSigningDealer(t);
    const { file } = await keyFile(t, kind, format);
    const key = await loadCardSigningKey(file, '--card-signing-key');
    const { proxy, journal } = await proxyFor(t, dealer.url, { cardSigningKey: key });
    const buyer = await createBuyer(proxy.url);
    const sdk = sdkVerifierFromJwks(proxy.url + CARD_JWKS_PATH);
    const card = await buyer.getAgentCard(undefined, sdk.verify as never);
    t.same(sdk.asked, [key.kid], 'the SDK looked the proxy key up by its kid');
    t.equal(card.supportedInterfaces[0]!.url, `${proxy.url}/a2a`, 'the card points at the proxy');
    const header = decodeProtectedHeader(card.signatures.at(-1)! as never);
    t.same(header, { alg: kind, kid: key.kid, typ: 'JOSE' }, 'alg by the key type, kid, typ JOSE');
    const reply = await sendSkill(buyer, 'inventory.search', { filters: {} });
    t.ok(reply.ok, 'the search went through the proxy');
    const cardLine = journal.find((e) => e.path === CARD)!;
    t.equal(cardLine.card_signatures, 'signed');
    t.ok(
      journal.some((e) => e.skill === 'inventory.search' && e.outcome === 'result'),
      'the search is journaled',
    );
  });
}

t.test('without a key the proxy removes the signature it broke, says so once, and journals it', async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { proxy, journal, said } = await proxyFor(t, dealer.url);
  const first = JSON.parse((await request(proxy.url + CARD)).body.toString());
  await request(proxy.url + CARD);
  t.equal(first.supportedInterfaces[0].url, `${proxy.url}/a2a`, 'still pointed at the proxy');
  t.equal(first.signatures, undefined, 'no broken signature is served');
  t.same(
    journal.map((e) => e.card_signatures),
    ['removed', 'removed'],
  );
  t.equal(said.length, 1, 'said once');
  t.match(said[0], /the dealer signs its agent card: signatures that no longer hold .* are removed/);
  await t.rejects(dealerKeyVerifier(dealer)(first), /No signatures found/, 'the SDK finds no signature, rather than a broken one');
});

t.test("--no-rewrite-card keeps the dealer's bytes and its signature", async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { proxy, journal } = await proxyFor(t, dealer.url, { rewriteCard: false });
  const served = (await request(proxy.url + CARD)).body;
  t.ok(served.equals(dealer.cardBytes()), 'byte for byte');
  await t.resolves(dealerKeyVerifier(dealer)(JSON.parse(served.toString())), "the SDK verifies the dealer's signature");
  t.equal(journal[0]!.card_signatures, undefined, 'the card was not read at all');
});

t.test("a patch outside the signed fields keeps the dealer's signature", async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { proxy, journal } = await proxyFor(t, dealer.url, {
    rewriteCard: false,
    scenario: 'rules:\n  - id: extra\n    card: { patch: [{ op: add, path: /x-unsigned, value: 1 }] }\n',
  });
  const card = JSON.parse((await request(proxy.url + CARD)).body.toString());
  t.equal(card['x-unsigned'], 1, 'the patch applied');
  await t.resolves(dealerKeyVerifier(dealer)(card), 'a field outside the v1.0 card is not covered, so the signature still holds');
  t.equal(journal[0]!.card_signatures, 'kept');
});

const FAULTS = {
  tamper: { sdk: /No valid signatures/, ours: /the signature does not verify/ },
  strip: { sdk: /No signatures found/, ours: undefined },
  'unknown-key': { sdk: /No valid signatures/, ours: /no trusted key has kid/ },
  'wrong-alg': { sdk: /No valid signatures/, ours: /alg HS256 does not match the key \(ES256\)/ },
} as const;

for (const [fault, expected] of Object.entries(FAULTS)) {
  t.test(`signature: ${fault} — the SDK verifier refuses the card, as named`, async (t) => {
    const dealer = await startSdkSigningDealer(t);
    const { file } = await keyFile(t, 'ES256');
    const key = await loadCardSigningKey(file, '--card-signing-key');
    const { proxy, journal } = await proxyFor(t, dealer.url, { cardSigningKey: key, scenario: `rules:\n  - id: forged\n    card: { signature: ${fault} }\n` });
    const card = JSON.parse((await request(proxy.url + CARD)).body.toString());
    const sdk = sdkVerifierFromJwks(proxy.url + CARD_JWKS_PATH);
    await t.rejects(sdk.verify(card), expected.sdk, 'the SDK refuses it');
    const jwks = [{ kid: key.kid, key: key.publicKey }];
    const ours = await verifyCardSignatures(card, jwks);
    if (fault === 'strip') t.equal(ours.state, 'none', 'no signature at all');
    else {
      t.equal(ours.state, 'invalid');
      t.match(ours.signatures[0]!.problem, expected.ours!);
    }
    if (fault === 'tamper') t.same(sdk.asked, [key.kid], "the SDK found the proxy's key, and the signature still failed");
    if (fault === 'unknown-key') t.not(sdk.asked[0], key.kid, 'signed under a kid the JWKS does not hold');
    if (fault === 'wrong-alg') t.equal(decodeProtectedHeader(card.signatures[0]).alg, 'HS256');
    const line = journal[0]!;
    t.equal(line.card_signatures, fault);
    t.same(line.faults, [{ rule: 'forged', effect: 'card' }]);
    t.same(line.effects, [`card: signature ${fault}`]);
  });
}

t.test("tamper without a key changes the card under the dealer's own signature", async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { proxy, journal } = await proxyFor(t, dealer.url, { rewriteCard: false, scenario: 'rules:\n  - id: forged\n    card: { signature: tamper }\n' });
  const card = JSON.parse((await request(proxy.url + CARD)).body.toString());
  t.equal(card.signatures.length, 1, "the dealer's signature is kept");
  await t.rejects(dealerKeyVerifier(dealer)(card), /No valid signatures/);
  t.equal(journal[0]!.card_signatures, 'tamper');
});

t.test('wrong-alg without a key is not applied, and the journal says why', async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { proxy, journal } = await proxyFor(t, dealer.url, { rewriteCard: false, scenario: 'rules:\n  - id: forged\n    card: { signature: wrong-alg }\n' });
  const served = (await request(proxy.url + CARD)).body;
  await t.resolves(dealerKeyVerifier(dealer)(JSON.parse(served.toString())), 'the card is served as the dealer signed it');
  t.equal(journal[0]!.card_signatures, 'kept');
  t.match(journal[0]!.notes, [/card signature wrong-alg not applied: the proxy has no key/]);
});

t.test('the JWKS is served on the proxy port only with a key; otherwise the path goes to the dealer', async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const { file } = await keyFile(t, 'ES256');
  const key = await loadCardSigningKey(file, '--card-signing-key');
  const signing = await proxyFor(t, dealer.url, { cardSigningKey: key });
  const jwks = await request(signing.proxy.url + CARD_JWKS_PATH);
  t.equal(jwks.status, 200);
  t.equal(jwks.headers['content-type'], 'application/jwk-set+json');
  t.same(
    JSON.parse(jwks.body.toString()).keys.map((k: { kid: string }) => k.kid),
    [key.kid],
  );
  t.notOk(JSON.parse(jwks.body.toString()).keys[0].d, 'never the private part');
  t.equal((await request(signing.proxy.url + CARD_JWKS_PATH, { method: 'POST', body: '{}' })).status, 405);
  t.same(signing.journal, [], 'the proxy answers it itself: no journal line');
  const plain = await proxyFor(t, dealer.url);
  t.equal((await request(plain.proxy.url + CARD_JWKS_PATH)).status, 404, "without a key the dealer's answer comes back");
});

t.test('a dealer seen signing at start: the start-up lines say the signatures are removed, and a fetch does not say it again', async (t) => {
  const dealer = await startSdkSigningDealer(t);
  const lines: string[] = [];
  const runtime = await startRuntime({ target: dealer.url, port: 0, adminPort: 0, log: (line) => lines.push(line) });
  t.teardown(() => runtime.close());
  const said = () => lines.filter((l) => /signs its agent card/.test(l));
  t.equal(said().length, 1, 'in the start-up lines');
  const card = JSON.parse((await request(runtime.url + CARD)).body.toString());
  t.equal(card.signatures, undefined);
  t.equal(runtime.journal.all().at(-1)!.card_signatures, 'removed');
  t.equal(said().length, 1, 'said once');
});

t.test('a card no signature can cover (a lone surrogate) is served unsigned, with notes, never a failed request', async (t) => {
  const upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"name":"Bad \\ud800 Motors","supportedInterfaces":[{"url":"http://127.0.0.1:9/a2a","protocolBinding":"JSONRPC"}]}');
  });
  t.teardown(() => upstream.close());
  const { file } = await keyFile(t, 'ES256');
  const key = await loadCardSigningKey(file, '--card-signing-key');
  const { proxy, journal } = await proxyFor(t, upstream.url, {
    cardSigningKey: key,
    scenario: 'rules:\n  - id: forged\n    card: { signature: unknown-key }\n',
  });
  const reply = await request(proxy.url + CARD);
  t.equal(reply.status, 200);
  t.equal(JSON.parse(reply.body.toString()).signatures, undefined);
  t.equal(journal[0]!.card_signatures, undefined);
  t.match(journal[0]!.notes, [/card not signed: Lone surrogate/, /card signature unknown-key not applied: Lone surrogate/]);
});
