// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// `aap-chaos exam` in CI: expected-failure baselines, pass^k over seeds and repeats. The seed buyer
// resends a rate-limited search at once under odd seeds (retry-after FAILs) and waits under even ones.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exam, fixture } from '../helpers/exam.js';
import { tempDir } from '../helpers/temp-dir.js';

t.setTimeout(300_000);

const dir = tempDir(t, 'aap-chaos-exam-ci-');
const buyer = ['--', process.execPath, fixture('seed-buyer.mjs')];
const scenario = ['--scenarios', fixture('throttle-once.yaml'), '--allow-incomplete'];

t.test('--write-baseline then --baseline: an expected FAIL keeps exit 0; once fixed the entry is STALE (exit 1)', async (t) => {
  const file = path.join(dir, 'aap-baseline.yaml');
  const written = await exam([...scenario, '--seed', '1', '--write-baseline', file, ...buyer]);
  t.equal(written.code, 0, written.err);
  const text = readFileSync(file, 'utf8');
  t.match(text, /- requirement: AAP-BUYER-001\n {2}scenario: throttle-once\n {2}reason: TODO\n/);
  t.same(
    [...text.matchAll(/requirement: (\S+)/g)].map((m) => m[1]),
    ['AAP-BUYER-001', 'AAP-BUYER-007'],
    'the FAILs of the run (the resent search also storms), nothing else',
  );

  const [expected, stale] = await Promise.all([
    exam([...scenario, '--seed', '1', '--baseline', file, '--junit', path.join(dir, 'x.xml'), '--html', path.join(dir, 'x.html'), ...buyer]),
    exam([...scenario, '--seed', '2', '--baseline', file, '--json', ...buyer]),
  ]);
  t.equal(expected.code, 0, expected.err);
  t.match(expected.out, /^throttle-once +XFAIL /m);
  t.match(expected.out, new RegExp(`^EXPECTED FAIL throttle-once retry-after \\(AAP-BUYER-001\\): TODO \\[${file.replace(/[.]/g, '\\.')}:3\\]$`, 'm'));
  t.match(readFileSync(path.join(dir, 'x.xml'), 'utf8'), /<skipped message="EXPECTED FAIL/);
  t.match(
    readFileSync(path.join(dir, 'x.html'), 'utf8'),
    /<td class="NE" title="[^"]*aap-baseline\.yaml:3: TODO"><a href="#ev-0-0-retry-after">EXPECTED FAIL<\/a>/,
  );

  t.equal(stale.code, 1, stale.err);
  const json = JSON.parse(stale.out) as { verdict: string; baseline: { stale: { requirement: string; line: number }[] } };
  t.equal(json.verdict, 'FAIL');
  t.same(json.baseline.stale, [
    { requirement: 'AAP-BUYER-001', scenario: 'throttle-once', reason: 'TODO', line: 3 },
    { requirement: 'AAP-BUYER-007', scenario: 'throttle-once', reason: 'TODO', line: 6 },
  ]);
  const table = await exam([...scenario, '--seed', '2', '--baseline', file, ...buyer]);
  t.match(
    table.out,
    new RegExp(`^STALE ${file.replace(/[.]/g, '\\.')}:3: AAP-BUYER-001 in throttle-once now passes in every run it covers; delete this entry`, 'm'),
  );
});

t.test('a baseline naming an unknown requirement or scenario is a usage error with file:line', async (t) => {
  const file = path.join(dir, 'bad.yaml');
  writeFileSync(file, '- requirement: AAP-BUYER-001\n  reason: known flaw\n- requirement: AAP-BUYER-999\n  reason: typo\n');
  const unknownId = await exam([...scenario, '--baseline', file, ...buyer]);
  t.equal(unknownId.code, 2);
  t.match(unknownId.err, `${file}:3: unknown requirement "AAP-BUYER-999"`);
  t.notMatch(unknownId.err, /exam: throttle-once/, 'no buyer ran');

  const json = path.join(dir, 'bad.json');
  writeFileSync(json, '[\n  {"requirement": "AAP-BUYER-001", "reason": "x"},\n  {"requirement": "AAP-BUYER-001", "scenario": "nope", "reason": "x"}\n]\n');
  const unknownScenario = await exam([...scenario, '--baseline', json, ...buyer]);
  t.equal(unknownScenario.code, 2);
  t.match(unknownScenario.err, `${json}:3: scenario "nope" is not in this exam`);
});

t.test('pass^k: failing one seed in three gives pass^3 = 0 and pass@1 = 2/3; --repeat runs one seed k times', async (t) => {
  const [seeds, repeat] = await Promise.all([
    exam([...scenario, '--seed', '2', '--seeds', '3', '--parallel', '3', '--json', ...buyer]),
    exam([...scenario, '--seed', '2', '--repeat', '2', '--parallel', '2', ...buyer]),
  ]);
  t.equal(seeds.code, 1, seeds.err);
  const { pass_k } = JSON.parse(seeds.out) as { pass_k: { overall: unknown; checks: Record<string, unknown> } };
  t.same(pass_k.overall, { k: 3, pass_k: 0, pass_at_1: 2 / 3, failed_seeds: [3] });
  t.same(pass_k.checks['retry-after'], { k: 3, pass_k: 0, pass_at_1: 2 / 3, failed_seeds: [3] });

  t.equal(repeat.code, 0, repeat.err);
  t.match(repeat.out, /^retry-after +1 +2\/2 +-$/m);
  t.match(repeat.out, /^overall +1 +2\/2 +-$/m);
});
