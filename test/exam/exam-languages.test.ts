// `aap-chaos exam` over buyers in other languages: Python with the standard library, curl in a shell.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

t.test('the Python standard-library buyer passes the default battery', { skip: pythonMissing() }, async (t) => {
  const run = await exam(['--parallel', '6', '--json', '--', 'python3', 'examples/python-buyer/buyer.py']);
  t.equal(run.code, 0, run.err);
  const result = JSON.parse(run.out) as ExamJson;
  t.same(
    result.scenarios.map((s) => s.scenario),
    ['rate-limit-storm', 'flaky-internal', 'activation-required', 'version-mismatch', 'lead-gauntlet', 'inventory-churn'],
    'the default battery',
  );
  for (const s of result.scenarios) t.same(withVerdict(s.verdicts, 'FAIL'), [], `${s.scenario}: no FAIL`);
  const passed = new Set(result.scenarios.flatMap((s) => withVerdict(s.verdicts, 'PASS')));
  t.same([...passed].sort(), ['activation', 'backoff', 'no-storm', 'non-retryable', 'retry-after', 'sold-vehicle', 'version'], 'the battery exercises the checks');
});

t.test('the curl buyer of the README fails the rate-limit checks', async (t) => {
  const run = await exam(['--scenarios', 'rate-limit-storm', '--json', '--', 'sh', 'examples/curl-buyer.sh']);
  t.equal(run.code, 1, run.err);
  const [s] = (JSON.parse(run.out) as ExamJson).scenarios;
  t.same(withVerdict(s!.verdicts, 'FAIL'), ['no-storm', 'retry-after']);
});

t.test('the README shows examples/curl-buyer.sh as it is, and opens with the exam of the Python buyer', async (t) => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const script = readFileSync(new URL('../../examples/curl-buyer.sh', import.meta.url), 'utf8');
  t.ok(readme.includes('```sh\n' + script + '```'), 'the curl buyer in the README is the file the test runs');
  const firstBlock = /```sh\n([^`]*)```/.exec(readme)![1]!;
  t.equal(firstBlock.trim(), 'npx aap-chaos exam -- python3 examples/python-buyer/buyer.py');
  t.match(readme.slice(0, readme.indexOf('## ')), /!\[[^\]]+\]\(docs\/exam-report\.png\)/, 'the screenshot comes before the first section');
});
