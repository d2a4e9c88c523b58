// aap-chaos check reads the dealer card's A2A v1.0 signatures: none; signed, not verified (no
// --card-key); valid (kid, alg) against a key file or a JWKS URL; invalid, which fails
// AAP-CARD-007 (MUST) and exits 1. A JWKS URL off loopback and off the target's origin, or one
// that sends too much, is refused with exit 2.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startMockDealer } from '../../src/mock/index.js';
import { runCheck, type CheckReport } from '../../src/check/run-check.js';
import { runCheckCommand } from '../../src/commands/check.js';
import { startRuntime } from '../../src/runtime.js';
import { loadScenarioText, formatProblem } from '../../src/scenario/load.js';
import { CARD_JWKS_PATH } from '../../src/protocol/card-signature.js';
import { keyFile } from '../helpers/card-signing.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startUpstream } from '../helpers/servers.js';

const rule007 = (report: CheckReport) => report.rules.find((r) => r.id === 'AAP-CARD-007')!;

t.test('an unsigned card: none, and AAP-CARD-007 is not checked', async (t) => {
  const mock = await startMockDealer({ port: 0 });
  t.teardown(() => mock.close());
  const report = await runCheck({ target: mock.url });
  t.equal(report.card_signatures?.state, 'none');
  t.equal(rule007(report).verdict, 'NOT CHECKED');
  t.match(rule007(report).note, /card signatures: none/);
});

t.test('a signed card: signed, not verified without --card-key; valid against the JWKS URL or a key file', async (t) => {
  const { file, publicKey } = await keyFile(t, 'ES256');
  const mock = await startMockDealer({ port: 0, signCard: file });
  t.teardown(() => mock.close());
  const unverified = await runCheck({ target: mock.url });
  t.equal(unverified.card_signatures?.state, 'unverified');
  t.equal(rule007(unverified).verdict, 'NOT CHECKED');
  t.ok(unverified.ok);

  const kid = mock.dealer.cardSigningKey!.kid;
  const viaUrl = await runCheckCommand({ target: mock.url, cardKey: mock.url + CARD_JWKS_PATH });
  t.equal(viaUrl.exitCode, 0);
  t.match(viaUrl.output, new RegExp(`card signatures: valid \\(kid ${kid}, ES256\\) against ${mock.url}${CARD_JWKS_PATH}`));
  t.match(viaUrl.output, /AAP-CARD-007 +MUST +PASS/);

  const pem = path.join(tempDir(t, 'aap-chaos-keys-'), 'dealer.pub.pem');
  writeFileSync(pem, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const viaFile = await runCheck({ target: mock.url, cardKey: pem });
  t.equal(viaFile.card_signatures?.state, 'valid', 'a bare PEM public key matches any kid');
  t.equal(rule007(viaFile).verdict, 'PASS');
});

t.test('an invalid signature is a MUST failure: exit 1, with the kid and what is wrong', async (t) => {
  const { file } = await keyFile(t, 'ES256');
  const loaded = loadScenarioText('rules:\n  - id: forged\n    card: { signature: tamper }\n', 'tamper.yaml');
  if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
  const runtime = await startRuntime({ port: 0, adminPort: 0, mock: { signCard: file }, scenario: loaded.scenario });
  t.teardown(() => runtime.close());
  const result = await runCheckCommand({ target: runtime.url, cardKey: runtime.url + CARD_JWKS_PATH, json: true });
  t.equal(result.exitCode, 1);
  const report = JSON.parse(result.output) as CheckReport;
  t.equal(report.card_signatures?.state, 'invalid');
  t.equal(rule007(report).verdict, 'FAIL');
  t.match(rule007(report).evidence[0], { probe: 'agent-card', pointer: '/signatures/0', seen: /the signature does not verify \(kid \S+, ES256\)/ });
});

t.test('--card-key that cannot be used: exit 2 before a probe is sent', async (t) => {
  const mock = await startMockDealer({ port: 0 });
  t.teardown(() => mock.close());
  const elsewhere = await runCheckCommand({ target: mock.url, cardKey: 'http://keys.example/jwks.json' });
  t.equal(elsewhere.exitCode, 2);
  t.match(elsewhere.output, /--card-key: http:\/\/keys\.example\/jwks\.json is neither on loopback nor on the target's origin/);
  const big = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"keys":[],"pad":"${'x'.repeat(100_000)}"}`);
  });
  t.teardown(() => big.close());
  const tooMuch = await runCheckCommand({ target: mock.url, cardKey: `${big.url}/jwks.json` });
  t.equal(tooMuch.exitCode, 2);
  t.match(tooMuch.output, /sent more than 65536 bytes/);
  const missing = await runCheckCommand({ target: mock.url, cardKey: '/no/such/jwks.json' });
  t.equal(missing.exitCode, 2);
  t.equal(missing.output, 'aap-chaos check: --card-key: /no/such/jwks.json no such file');
});
