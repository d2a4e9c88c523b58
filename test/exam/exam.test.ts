// `aap-chaos exam` as a user runs it: the built CLI, real buyer processes in three languages,
// one proxy (and embedded mock dealer) per scenario on loopback.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exam, fixture, jsBuyer, withVerdict, type ExamJson } from './exam-helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'aap-chaos-exam-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const noStack = (text: string) => !/\n\s+at .+:\d+:\d+/.test(text);

/** Whether `pid` is still running: a killed process nobody has reaped yet is a zombie, not running. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const SCENARIOS = 'rate-limit-storm,flaky-internal,activation-required,lead-gauntlet';

/** What the resilient buyer must PASS in each scenario (proof it was tested), as in the in-process reference test. */
const resilientPasses: Record<string, string[]> = {
  'rate-limit-storm': ['no-storm', 'non-retryable', 'retry-after', 'sold-vehicle'],
  'flaky-internal': ['backoff', 'non-retryable', 'sold-vehicle'],
  'activation-required': ['activation', 'non-retryable', 'sold-vehicle', 'version'],
  'lead-gauntlet': ['non-retryable', 'sold-vehicle'],
};

/**
 * What the naive buyer must FAIL. Its backoff verdict in flaky-internal is left out: it retries
 * at once, and whether three immediate retries show "growing gaps" depends on how a loaded
 * machine schedules a separate process, not on the buyer.
 */
const naiveFails: Record<string, string[]> = {
  'rate-limit-storm': ['no-storm', 'non-retryable', 'retry-after', 'sold-vehicle'],
  'flaky-internal': ['idempotency', 'non-retryable', 'sold-vehicle'],
  'activation-required': ['activation'],
  'lead-gauntlet': ['non-retryable', 'sold-vehicle'],
};

t.test('the resilient JS buyer: every check PASS or NOT EXERCISED, exit 0, JUnit with one case per scenario × check', async (t) => {
  const junit = path.join(dir, 'resilient.xml');
  const run = await exam(['--scenarios', SCENARIOS, '--parallel', '4', '--json', '--junit', junit, '--', ...jsBuyer('resilient')]);
  t.equal(run.code, 0, run.err);
  const result = JSON.parse(run.out) as ExamJson;
  t.equal(result.ok, true);
  for (const s of result.scenarios) {
    t.same(withVerdict(s.verdicts, 'FAIL'), [], `${s.scenario}: no FAIL`);
    t.same(withVerdict(s.verdicts, 'PASS'), resilientPasses[s.scenario], `${s.scenario}: the checks it exercises pass`);
    t.equal(s.runs[0]!.buyer.exit_code, 0);
  }
  const xml = readFileSync(junit, 'utf8');
  t.equal(xml.match(/<testcase /g)?.length, 4 * 8, 'one test case per scenario × check');
  t.notMatch(xml, /<failure/);
});

t.test('the naive JS buyer: the expected FAILs per scenario, exit 1, its output tail shown', async (t) => {
  const junit = path.join(dir, 'naive.xml');
  const run = await exam(['--scenarios', SCENARIOS, '--parallel', '4', '--junit', junit, '--', ...jsBuyer('naive')]);
  t.equal(run.code, 1, run.err);
  const xml = readFileSync(junit, 'utf8');
  for (const [scenario, expected] of Object.entries(naiveFails)) {
    const failed = [...xml.matchAll(new RegExp(`<testcase classname="aap-chaos\\.exam\\.${scenario}" name="([a-z-]+)"[^>]*>\\s*<failure`, 'g'))].map((m) => m[1]!).sort();
    const required = failed.filter((c) => c !== 'backoff' || scenario !== 'flaky-internal');
    t.same(required, expected, `${scenario}: FAILs`);
  }
  t.match(run.out, /^SCENARIO +retry-after +non-retryable +backoff +activation +version +idempotency +no-storm +sold-vehicle +BUYER +TIME$/m);
  t.match(run.out, /^rate-limit-storm +FAIL +FAIL +NOT EXERCISED .* exit 0 +\d+\.\d s$/m);
  t.match(run.out, /FAIL rate-limit-storm \(seed 42\), buyer exit 0/);
  t.match(run.out, /evidence \(journal ids\): [0-9A-Z]{26}/);
  t.match(run.out, /buyer stdout, last 20 lines:\n {4}\| inventory\.search: /);
  t.match(run.out, /^FAIL: \d+ passed, \d+ failed, 0 flaky, \d+ not exercised \(4 scenarios\)$/m);
});

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

t.test('--seeds 3: the same seeds give the same verdicts, and a buyer that depends on them is FLAKY', async (t) => {
  const args = ['--scenarios', fixture('throttle-once.yaml'), '--seeds', '3', '--parallel', '3', '--json', '--', process.execPath, fixture('seed-buyer.mjs')];
  const [first, second] = await Promise.all([exam(args), exam(args)]);
  t.equal(first.code, 1, first.err);
  t.equal(second.code, 1, second.err);
  const runsOf = (o: { out: string }) => (JSON.parse(o.out) as ExamJson).scenarios[0]!.runs.map((r) => ({ seed: r.seed, verdicts: r.verdicts, stdout: r.buyer.stdout }));
  t.same(runsOf(first).map((r) => r.seed), [1, 2, 3], "seeds count up from the scenario's own");
  t.same(runsOf(second), runsOf(first), 'same verdicts and the same seeded faults for the same seeds');
  const s = (JSON.parse(first.out) as ExamJson).scenarios[0]!;
  t.equal(s.flaky, true);
  t.equal(s.verdicts['retry-after'], 'FLAKY');
  t.same(s.runs.map((r) => r.ok), [false, true, false]);

  const table = await exam(args.filter((a) => a !== '--json'));
  t.match(table.out, /^FLAKY throttle-once: passes under seed 2, fails under seed 1, 3$/m);
  t.match(table.out, /^throttle-once ×3 +FLAKY /m);
});

t.test('--timeout stops the buyer and everything it started; --require-exit-0 makes that a FAIL', async (t) => {
  const pidFile = path.join(dir, 'helper.pid');
  const started = Date.now();
  const run = await exam(['--scenarios', fixture('throttle-once.yaml'), '--seed', '2', '--timeout', '1500ms', '--require-exit-0', '--json', '--', process.execPath, fixture('seed-buyer.mjs')], {
    SLEEP_FOREVER: '1',
    HELPER_PID_FILE: pidFile,
  });
  t.ok(Date.now() - started < 20_000, 'bounded by the timeout');
  t.equal(run.code, 1, run.err);
  const s = (JSON.parse(run.out) as ExamJson).scenarios[0]!;
  t.same(s.runs[0]!.buyer, { ...s.runs[0]!.buyer, exit_code: null, signal: 'SIGTERM', timed_out: true });
  t.equal(s.verdicts['buyer-exit'], 'FAIL');
  t.equal(s.verdicts['retry-after'], 'PASS', 'the requests it made are still graded');
  const helper = Number(readFileSync(pidFile, 'utf8'));
  t.notOk(running(helper), 'the helper in its process group is gone too');

  const lenient = await exam(['--scenarios', fixture('throttle-once.yaml'), '--seed', '2', '--timeout', '1s', '--', process.execPath, fixture('seed-buyer.mjs')], { SLEEP_FOREVER: '1' });
  t.equal(lenient.code, 0, 'without --require-exit-0 the exit is shown, not graded');
  t.match(lenient.out, /SIGTERM \(timed out\)/);
});

t.test('usage errors and a buyer that cannot start exit 2 with one clear line', async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /no buyer command: put it after "--"/],
    [['python3', 'buyer.py'], /the buyer command goes after "--"/],
    [['--seeds', '0', '--', 'true'], /--seeds: "0" is not a whole number of 1 or more/],
    [['--timeout', 'soon', '--', 'true'], /--timeout: "soon" is not a duration/],
    [['--all', '--scenarios', 'demo', '--', 'true'], /--all and --scenarios exclude each other/],
    [['--target', 'ftp://x', '--', 'true'], /--target: "ftp:\/\/x" is not an http/],
    [['--scenarios', 'no-such-scenario', '--', 'true'], /--scenarios: no-such-scenario was not loaded:\n {2}.*no built-in scenario named "no-such-scenario"/],
    [['--frobnicate', '--', 'true'], /Unknown option '--frobnicate'/],
    [['--scenarios', 'passthrough', '--', path.join(dir, 'no-such-buyer')], /cannot start the buyer ".*no-such-buyer": no such program/],
    [['--scenarios', 'passthrough', '--junit', path.join(dir, 'missing', 'x.xml'), '--', 'true'], /--junit: cannot write .*x\.xml: ENOENT/],
  ];
  for (const [args, message] of cases) {
    const run = await exam(args);
    t.equal(run.code, 2, `exit 2 for ${args.join(' ')}`);
    t.match(run.err, message);
    t.ok(noStack(run.out + run.err), 'no stack trace');
  }
  const help = await exam(['--help']);
  t.equal(help.code, 0);
  for (const flag of ['--scenarios', '--all', '--target', '--timeout', '--seeds', '--seed', '--parallel', '--profile', '--require-exit-0', '--json', '--junit', '--html']) t.match(help.out, flag);
});
