// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// `aap-chaos exam` options: seeds and flakiness, the timeout, usage errors.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runExamCommand } from '../../src/commands/exam.js';
import { startMockDealer } from '../../src/mock/server.js';
import { exam, fixture, type ExamJson } from '../helpers/exam.js';
import { tempDir } from '../helpers/temp-dir.js';

// Every test here runs buyer processes on a shared, slow machine: allow more than tap's default.
t.setTimeout(300_000);

const dir = tempDir(t, 'aap-chaos-exam-');
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

t.test('--seeds 3: the same seeds give the same verdicts, and a buyer that depends on them is FLAKY', async (t) => {
  const args = ['--scenarios', fixture('throttle-once.yaml'), '--seeds', '3', '--parallel', '3', '--', process.execPath, fixture('seed-buyer.mjs')];
  const junit = path.join(dir, 'seeds.xml');
  // The same exam twice at once: once as JSON, once as the table with JUnit beside it.
  const [first, second] = await Promise.all([exam(['--json', ...args]), exam(['--junit', junit, ...args])]);
  t.equal(first.code, 1, first.err);
  t.equal(second.code, 1, second.err);
  const s = (JSON.parse(first.out) as ExamJson).scenarios[0]!;
  t.same(
    s.runs.map((r) => r.seed),
    [1, 2, 3],
    "seeds count up from the scenario's own",
  );
  const fromJson = s.runs.flatMap((r) => Object.entries(r.verdicts).map(([check, v]) => `${check} [seed ${r.seed}] ${v}`)).sort();
  const xml = readFileSync(junit, 'utf8');
  // A case may carry its requirement id in <properties> first; a skipped one says which kind of skip.
  const fromJUnit = [
    ...xml.matchAll(
      /<testcase [^>]*name="([^"]+)"[^>]*?(\/>|>\s*(?:<properties>(?:(?!<\/properties>)[\s\S])*<\/properties>\s*)?<(failure|skipped message="(NOT [A-Z]+)|\/testcase))/g,
    ),
  ]
    .map((m) => `${m[1]} ${m[3] === 'failure' ? 'FAIL' : m[4] === 'NOT APPLICABLE' ? 'NOT APPLICABLE' : m[4] ? 'NOT EXERCISED' : 'PASS'}`)
    .sort();
  t.same(fromJUnit, fromJson, 'same verdicts for the same seeds');
  for (const r of s.runs) t.match(xml, r.buyer.stdout.trim(), `seed ${r.seed}: the same seeded faults (${r.buyer.stdout.trim()})`);
  t.equal(s.flaky, true);
  t.equal(s.verdicts['retry-after'], 'FLAKY');
  t.same(
    s.runs.map((r) => r.ok),
    [false, true, false],
  );
  t.match(second.out, /^FLAKY throttle-once: passes under seed 2, fails under seed 1, 3$/m);
  t.match(second.out, /^throttle-once ×3 +FLAKY /m);
});

t.test('--timeout stops the buyer and everything it started; --require-exit-0 makes that a FAIL', async (t) => {
  const pidFile = path.join(dir, 'helper.pid');
  const started = Date.now();
  const run = await exam(
    [
      '--scenarios',
      fixture('throttle-once.yaml'),
      '--seed',
      '2',
      '--timeout',
      '6s',
      '--require-exit-0',
      '--json',
      '--',
      process.execPath,
      fixture('seed-buyer.mjs'),
    ],
    {
      SLEEP_FOREVER: '1',
      HELPER_PID_FILE: pidFile,
    },
  );
  t.ok(Date.now() - started < 40_000, 'bounded by the timeout');
  t.equal(run.code, 1, run.err);
  const s = (JSON.parse(run.out) as ExamJson).scenarios[0]!;
  t.same(s.runs[0]!.buyer, { ...s.runs[0]!.buyer, exit_code: null, signal: 'SIGTERM', timed_out: true });
  t.equal(s.verdicts['buyer-exit'], 'FAIL');
  t.equal(s.verdicts['retry-after'], 'PASS', 'the requests it made are still graded');
  const helper = Number(readFileSync(pidFile, 'utf8'));
  t.notOk(running(helper), 'the helper in its process group is gone too');

  const lenient = await exam(
    ['--scenarios', fixture('throttle-once.yaml'), '--seed', '2', '--timeout', '1s', '--allow-incomplete', '--', process.execPath, fixture('seed-buyer.mjs')],
    { SLEEP_FOREVER: '1' },
  );
  t.equal(lenient.code, 0, 'without --require-exit-0 the exit is shown, not graded');
  t.match(lenient.out, /SIGTERM \(timed out\)/);
});

t.test('--target: every run stands in front of the given dealer, and the buyer sees the exam variables', async (t) => {
  const dealer = await startMockDealer({ port: 0 });
  t.teardown(() => dealer.close());
  const script = 'echo "$AAP_CHAOS_SCENARIO $AAP_CHAOS_SEED $AAP_CHAOS_ADMIN_URL"; curl -sS "$AAP_DEALER_URL/.well-known/agent-card.json"';
  const run = await exam(['--target', dealer.url, '--scenarios', 'passthrough,demo', '--seed', '5', '--parallel', '2', '--json', '--', 'sh', '-c', script]);
  t.equal(run.code, 3, 'nothing failed, nothing was exercised: INCOMPLETE');
  const result = JSON.parse(run.out) as ExamJson;
  for (const s of result.scenarios) {
    const [vars, card] = s.runs[0]!.buyer.stdout.split('\n');
    t.match(vars, new RegExp(`^${s.scenario} 5 http://127\\.0\\.0\\.1:\\d+$`), `${s.scenario}: scenario, seed and admin URL`);
    const url: string = JSON.parse(card!).supportedInterfaces[0].url;
    t.notMatch(url, dealer.url, "the card points at the run's proxy, not at the dealer");
  }
});

t.test('usage errors and a buyer that cannot start exit 2 with one clear line', async (t) => {
  const cases: [string[], RegExp][] = [
    [[], /no buyer command: put it after "--"/],
    [['python3', 'buyer.py'], /the buyer command goes after "--"/],
    [['--seeds', '0', '--', 'true'], /--seeds: "0" is not a whole number from 1 to 1000/],
    [['--seeds', '99999999999', '--', 'true'], /--seeds: "99999999999" is not a whole number from 1 to 1000/],
    [['--repeat', '99999999999', '--', 'true'], /--repeat: "99999999999" is not a whole number from 1 to 1000/],
    [['--parallel', '65', '--', 'true'], /--parallel: "65" is not a whole number from 1 to 64/],
    [['--seed', '2147483647', '--seeds', '5', '--', 'true'], /--seed 2147483647 --seeds 5: the last seed would be 2147483651, past 2147483647/],
    [['--timeout', 'soon', '--', 'true'], /--timeout: "soon" is not a duration/],
    [['--all', '--scenarios', 'demo', '--', 'true'], /--all and --scenarios exclude each other/],
    [['--target', 'ftp://x', '--', 'true'], /--target: "ftp:\/\/x" is not an http/],
    [['--scenarios', 'no-such-scenario', '--', 'true'], /--scenarios: no-such-scenario was not loaded:\n {2}.*no built-in scenario named "no-such-scenario"/],
    [['--frobnicate', '--', 'true'], /Unknown option '--frobnicate'/],
    [['--scenarios', 'passthrough', '--', path.join(dir, 'no-such-buyer')], /cannot start the buyer ".*no-such-buyer": no such program/],
    [['--scenarios', 'passthrough', '--junit', path.join(dir, 'missing', 'x.xml'), '--', 'true'], /--junit: cannot write .*x\.xml: ENOENT/],
  ];
  // The command's own code, in this process: one child process per case would only load the machine.
  for (const [args, message] of cases) {
    let out = '';
    let err = '';
    const code = await runExamCommand(args, { out: (l) => (out += `${l}\n`), err: (l) => (err += `${l}\n`) });
    const run = { code, out, err };
    t.equal(run.code, 2, `exit 2 for ${args.join(' ')}`);
    t.match(run.err, message);
    t.ok(noStack(run.out + run.err), 'no stack trace');
  }
  const cli = await exam(['--seeds', 'x', '--', 'true']);
  t.equal(cli.code, 2, 'the CLI exits 2 on a usage error');
  t.match(cli.err, /^aap-chaos exam: --seeds: "x" is not a whole number/);
  t.ok(noStack(cli.out + cli.err), 'no stack trace');
  const help = await exam(['--help']);
  t.equal(help.code, 0);
  const docs = readFileSync(new URL('../../docs/exam.md', import.meta.url), 'utf8');
  const flags = [...help.out.matchAll(/^ {2}(?:-h, )?(--[a-z0-9-]+)/gm)].map((m) => m[1]!);
  t.same(flags, [
    '--scenarios',
    '--all',
    '--target',
    '--dealer',
    '--mock-dealers',
    '--slow-dealer-budget',
    '--timeout',
    '--seeds',
    '--seed',
    '--repeat',
    '--baseline',
    '--write-baseline',
    '--shrink',
    '--shrink-budget',
    '--card-trust',
    '--parallel',
    '--profile',
    '--require-exit-0',
    '--allow-incomplete',
    '--json',
    '--junit',
    '--html',
    '--list-requirements',
    '--help',
  ]);
  for (const flag of flags) t.match(docs, `| \`${flag}`, `docs/exam.md documents ${flag}`);
  for (const variable of ['AAP_DEALER_URL', 'AAP_CHAOS_SCENARIO', 'AAP_CHAOS_ADMIN_URL', 'AAP_CHAOS_SEED']) t.match(docs, variable);
});
