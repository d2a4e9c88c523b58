// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// `aap-chaos exam` over buyers in other languages: Python with the standard library, curl in a shell.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DEFAULT_EXAM_CHECK_NAMES as CHECK_NAMES } from '../../src/report/checks/index.js';
import { exam, withVerdict, type ExamJson } from '../helpers/exam.js';

// Every test here runs buyer processes on a shared, slow machine: allow more than tap's default.
t.setTimeout(300_000);

/** The reason to skip the Python buyer, or false when python3 is on PATH. */
function pythonMissing(): string | false {
  try {
    if (execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim()) return false;
  } catch {
    /* not found */
  }
  return 'needs python3 on PATH (apt-get install -y python3)';
}

t.test('the Python standard-library buyer PASSes the default battery with every check exercised', { skip: pythonMissing() }, async (t) => {
  const run = await exam(['--parallel', '4', '--', 'python3', 'examples/python-buyer/buyer.py']);
  t.equal(run.code, 0, run.err);
  for (const check of CHECK_NAMES) t.match(run.out, new RegExp(`^${check} +AAP-BUYER-\\d{3} +PASS `, 'm'), `${check} PASSes over the battery`);
  t.match(run.out, /^lead-recovery\+untidy-envelopes +/m, 'the untidy twin of lead-recovery runs too');
  t.notMatch(run.out, /NOT EXERCISED|FAIL/, 'no check left NOT EXERCISED, none FAILed');
  t.match(run.out, /^PASS: \d+ passed, 0 failed, 0 flaky, \d+ not exercised \(8 scenarios\); 11 of 11 required checks passed over the battery$/m);
});

t.test('the curl buyer of the README: FAILs under rate-limit-storm; only inventory.search, so INCOMPLETE (exit 3) where nothing fails', async (t) => {
  const [storm, calm, allowed] = await Promise.all([
    exam(['--scenarios', 'rate-limit-storm', '--json', '--', 'sh', 'examples/curl-buyer.sh']),
    exam(['--scenarios', 'passthrough', '--json', '--', 'sh', 'examples/curl-buyer.sh']),
    exam(['--scenarios', 'passthrough', '--allow-incomplete', '--', 'sh', 'examples/curl-buyer.sh']),
  ]);
  t.equal(storm.code, 1, storm.err);
  const [s] = (JSON.parse(storm.out) as ExamJson).scenarios;
  t.same(withVerdict(s!.verdicts, 'FAIL'), ['no-storm', 'retry-after']);

  t.equal(calm.code, 3, calm.err);
  const result = JSON.parse(calm.out) as ExamJson;
  t.equal(result.verdict, 'INCOMPLETE');
  t.same(withVerdict(result.battery, 'NOT APPLICABLE'), ['fresh-key', 'idempotency', 'sold-vehicle'], 'checks about skills it never called');
  t.same(
    result.incomplete.find((i) => i.check === 'idempotency'),
    { check: 'idempotency', id: 'AAP-BUYER-006', verdict: 'NOT APPLICABLE' },
  );
  t.notOk(
    result.incomplete.some((i) => i.check === 'version'),
    'version is a 2.0 requirement; the run spoke 1.3',
  );

  t.equal(allowed.code, 0, '--allow-incomplete');
  t.match(allowed.out, /^INCOMPLETE: .*\nNever passed: retry-after \(AAP-BUYER-001\) NOT EXERCISED, .*idempotency \(AAP-BUYER-006\) NOT APPLICABLE/m);
});

t.test('--list-requirements prints every requirement, for one profile and as JSON, with no buyer', async (t) => {
  const [all, json] = await Promise.all([exam(['--list-requirements']), exam(['--list-requirements', '--profile', '1.3', '--json'])]);
  t.equal(all.code, 0, all.err);
  for (const check of CHECK_NAMES) t.match(all.out, new RegExp(`^AAP-BUYER-\\d{3} +${check} +(MUST|SHOULD) `, 'm'), check);
  t.match(all.out, /^AAP-BUYER-011 +payload-by-type +MUST +2\.0 +Errors \(introduction\): "MUST locate the AAP payload by its @type/m);
  t.equal(json.code, 0, json.err);
  const rows = JSON.parse(json.out) as { id: string; check: string; level: string; profiles: string[]; seed: { section: string; quote: string } }[];
  t.ok(
    rows.every((r) => r.profiles.includes('1.3')),
    'only the 1.3 requirements',
  );
  t.notOk(
    rows.some((r) => r.check === 'version'),
    'version binds under 2.0 only',
  );
  t.same(rows[0], { ...rows[0], id: 'AAP-BUYER-001', check: 'retry-after', level: 'SHOULD' });
});

t.test('the README shows examples/curl-buyer.sh as it is, and opens with the exam of the Python buyer', async (t) => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const script = readFileSync(new URL('../../examples/curl-buyer.sh', import.meta.url), 'utf8');
  t.ok(readme.includes('```sh\n' + script + '```'), 'the curl buyer in the README is the file the test runs');
  const firstBlock = /```sh\n([^`]*)```/.exec(readme)![1]!;
  t.equal(firstBlock.trim(), 'npx aap-chaos exam -- python3 examples/python-buyer/buyer.py');
  t.match(readme.slice(0, readme.indexOf('## ')), /!\[[^\]]+\]\(docs\/exam-report\.png\)/, 'the screenshot comes before the first section');
  const scorecard = /```text\n([^`]*)```/.exec(readme)![1]!;
  t.ok(readme.indexOf(scorecard) < readme.indexOf('## '), 'the first example shows its scorecard');
  for (const check of CHECK_NAMES) t.match(scorecard, new RegExp(`^${check} +AAP-BUYER-\\d{3} +PASS `, 'm'), `the scorecard shows ${check} PASS`);
  t.notMatch(scorecard, /NOT EXERCISED|NOT APPLICABLE|FAIL/, 'a complete scorecard: no check left unexercised');
  t.match(scorecard, /^PASS: .* 11 of 11 required checks passed over the battery$/m);
});
