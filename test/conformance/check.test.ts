// aap-chaos check against real dealers on loopback: the mock (which must pass), a deliberately
// broken dealer (which must break exactly its known rules) and a dealer on the stock SDK server.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startMockDealer } from '../../src/mock/index.js';
import { runCheck, type CheckReport } from '../../src/check/run-check.js';
import { runCheckCommand } from '../../src/commands/check.js';
import { CONFORMANCE_RULES } from '../../src/protocol/conformance/index.js';
import { BROKEN_DEALER_RULES, startBrokenDealer } from './broken-dealer.js';
import { startSdkDealer } from './sdk-dealer.js';
import { tempDir } from '../helpers/temp-dir.js';

const failedRules = (report: CheckReport) =>
  report.rules
    .filter((r) => r.verdict === 'FAIL')
    .map((r) => r.id)
    .sort();
const verdictOf = (report: CheckReport, id: string) => report.rules.find((r) => r.id === id)?.verdict;

for (const profile of ['1.3', '2.0'] as const) {
  t.test(`the mock dealer (${profile}) passes check with zero violations`, async (t) => {
    const mock = await startMockDealer({ profile, streaming: true, port: 0 });
    t.teardown(() => mock.close());
    const report = await runCheck({ target: mock.url });
    t.same(
      failedRules(report),
      [],
      JSON.stringify(
        report.rules.filter((r) => r.verdict === 'FAIL'),
        null,
        1,
      ),
    );
    t.ok(report.ok);
    t.equal(report.profile, profile, 'profile read from the card');
    t.equal(report.rules.length, CONFORMANCE_RULES.length, 'every rule is graded');
    t.ok(report.requests <= 40 && report.duration_ms < 30_000, `bounded: ${report.requests} requests in ${report.duration_ms} ms`);
    for (const id of ['AAP-CARD-001', 'AAP-RPC-002', 'AAP-OK-004', 'AAP-ERR-008', 'AAP-ERR-011', 'AAP-HDR-004', 'AAP-SSE-001'])
      t.equal(verdictOf(report, id), 'PASS', `${id} was exercised and held`);
    if (profile === '2.0')
      for (const id of ['AAP-ERR-003', 'AAP-ERR-013', 'AAP-ERR-014', 'AAP-HDR-001', 'AAP-HDR-002']) t.equal(verdictOf(report, id), 'PASS', `${id} held`);
    else t.equal(verdictOf(report, 'AAP-ERR-003'), 'NOT CHECKED', '2.0-only rules are not checked under 1.3');
  });
}

t.test('a deliberately broken dealer breaks exactly its known rules; exit 1, JSON and JUnit say so', async (t) => {
  const broken = await startBrokenDealer();
  t.teardown(() => broken.close());
  const report = await runCheck({ target: broken.url, probeRateLimit: true });
  t.same(failedRules(report), BROKEN_DEALER_RULES);
  const rateLimit = report.rules.find((r) => r.id === 'AAP-ERR-008')!;
  t.match(
    rateLimit.evidence[0],
    { probe: 'rate-limit', pointer: '/error/code', seen: '-32002' },
    'the evidence names the probe, the pointer and the wire value',
  );

  const dir = tempDir(t, 'aap-check-');
  const junit = path.join(dir, 'check.xml');
  const result = await runCheckCommand({ target: broken.url, probeRateLimit: true, junit });
  t.equal(result.exitCode, 1, 'a MUST violation exits 1');
  t.match(result.output, /AAP-ERR-003\s+MUST\s+FAIL/);
  t.match(result.output, /FAIL: \d+ passed, 8 failed \(8 MUST\)/);
  const xml = await readFile(junit, 'utf8');
  t.equal((xml.match(/<failure /g) ?? []).length, 8, 'one JUnit failure per broken rule');
  const json = JSON.parse((await runCheckCommand({ target: broken.url, json: true })).output);
  t.ok(
    json.wire.some((w: any) => w.probe === 'extension-missing' && w.response.body.includes('-32008')),
    'the JSON output carries the wire record',
  );
});

t.test('a dealer on the stock @a2a-js/sdk server: check names its -32008 violations', async (t) => {
  const sdk = await startSdkDealer();
  t.teardown(() => sdk.close());
  const report = await runCheck({ target: sdk.url });
  t.equal(report.profile, '2.0');
  for (const id of ['AAP-ERR-013', 'AAP-ERR-014']) {
    const rule = report.rules.find((r) => r.id === id)!;
    t.equal(rule.verdict, 'FAIL', `${id} fails`);
    t.equal(rule.evidence[0]?.probe, 'extension-missing');
  }
  t.equal(verdictOf(report, 'AAP-HDR-001'), 'PASS', 'the SDK does refuse the call with -32008');
  t.notOk(report.ok);
});

t.test('an unreachable target or a bad URL exits 2 with one line', async (t) => {
  const unreachable = await runCheckCommand({ target: 'http://127.0.0.1:9' });
  t.equal(unreachable.exitCode, 2);
  t.match(unreachable.output, /^aap-chaos check: cannot reach the dealer at http:\/\/127\.0\.0\.1:9\//);
  const bad = await runCheckCommand({ target: 'ftp://x' });
  t.same(bad, { exitCode: 2, output: 'aap-chaos check: --target: "ftp://x" is not an http(s) URL' });
});
