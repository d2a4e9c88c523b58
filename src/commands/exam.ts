/**
 * The `aap-chaos exam` command line: flags before `--`, the buyer command after it. Usage errors
 * and a buyer that cannot be started exit 2 with one message; otherwise the exit code is the
 * scorecard's (0 PASS, 1 a FAIL or a flaky check, 3 INCOMPLETE).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { applyBaseline, BaselineError, baselineYaml, loadBaseline, parseBaseline } from '../exam/baseline.js';
import { BatteryError, loadBattery, scenarioRefs } from '../exam/battery.js';
import { withUntidyTwins } from '../exam/differential.js';
import { formatReproducers, shrinkFailures } from '../exam/shrink-run.js';
import { checkOption, OptionError, RUN_OPTIONS } from '../options.js';
import { positiveDuration, wholeNumber } from '../option-values.js';
import { BuyerStartError, stopRunningBuyers } from '../exam/buyer-process.js';
import { runExam, type ExamOptions } from '../exam/exam.js';
import { newExamCardKey } from '../exam/card-trust.js';
import { examHtml } from '../exam/html.js';
import { examJUnit } from '../exam/junit.js';
import { scorecardJson } from '../exam/scorecard.js';
import { formatScorecard } from '../exam/terminal.js';
import { formatRequirements, listRequirements } from '../report/requirements.js';
import { PROFILES, type Profile } from '../protocol/codes.js';

export const EXAM_USAGE = `usage: aap-chaos exam [options] -- <buyer command…>

Runs the buyer command once per scenario (and seed), each time against a fresh proxy, and grades it
with the report's checks. The buyer finds the proxy in AAP_DEALER_URL (with several dealers, their
base URLs in AAP_DEALER_URLS); AAP_CHAOS_SCENARIO, AAP_CHAOS_ADMIN_URL and AAP_CHAOS_SEED are set too.

  --scenarios LIST     built-in names and scenario files, comma-separated (default: the buyer battery)
  --all                every built-in scenario
  --target URL         the dealer to stand in front of, or replay:FILE to answer from a recording
                       (default: an embedded mock dealer per run)
  --dealer NAME=URL    several dealers behind each run's proxy, repeatable; the buyer gets their base
                       URLs in AAP_DEALER_URLS (comma-separated) and grading adds the checks across dealers
  --mock-dealers N     N embedded mock dealers per run (m1…mN), in AAP_DEALER_URLS the same way
  --slow-dealer-budget DURATION
                       with one dealer slow, how long the buyer may run before slow-dealer fails (default 10s)
  --timeout DURATION   how long one buyer run may take, then its process group is stopped (default 60s)
  --seeds N            run each scenario under N seeds (1-1000); verdicts that differ are FLAKY (default 1)
  --seed N             the first seed (default: the scenario's own, else 1)
  --repeat K           run each scenario and seed K times (a buyer that is not deterministic on its
                       own); with --seeds or --repeat the scorecard shows pass^k and pass@1 per check
  --baseline FILE      YAML or JSON list of {requirement, scenario?, reason}: FAILs it covers are
                       EXPECTED FAIL and do not fail the exam; an entry whose requirement now passes
                       in every run it covers is STALE and fails the exam (delete it)
  --write-baseline FILE  write this run's FAILs as a baseline (reason: TODO; reasons of a --baseline
                       kept); the exit code is the one this run has with that baseline
  --shrink             for each FAIL, re-run the buyer with subsets of the faults that fired until a
                       minimal set still FAILs; write it to repro/<scenario>-<check>-seed<N>.yaml
                       and print the command that reproduces it
  --shrink-budget N    buyer runs --shrink may spend over the whole exam (default 30; implies --shrink)
  --card-trust         also grade card trust (A2A v1.0 card signatures): every run's proxy signs the
                       agent cards it serves, the buyer gets the proxy's JWKS in AAP_CARD_JWKS_URL,
                       the built-in card-forgery joins the battery (a tampered, then an unsigned
                       card) and card-trust becomes a required check
  --parallel N         runs side by side (1-64), each on its own proxy (default 1)
  --profile P          auto | 1.3 | 2.0 (default: the scenario's, else auto)
  --require-exit-0     a buyer exit code other than 0 is a FAIL
  --allow-incomplete   exit 0 (not 3) when nothing failed but some check was never exercised
  --json               print the scorecard as JSON instead of the table
  --junit FILE         also write JUnit XML (one test case per scenario × check)
  --html FILE          also write a self-contained HTML report with a timeline per scenario
  --list-requirements  print the buyer requirements the checks enforce (ids, levels, profiles,
                       seed sections) and exit; with --profile 1.3|2.0 only that profile's, with
                       --json as JSON; needs no buyer command
  -h, --help           this text

Ctrl-C stops the running buyer's process group, then the exam (exit 130).

Exit code: 0 PASS (every check of the requirement set passed at least once and none failed),
1 FAIL (a check failed or is flaky), 2 bad usage or the buyer could not be started,
3 INCOMPLETE (nothing failed, but some required check never passed: not exercised or not
applicable; --allow-incomplete makes this 0).`;

export interface ExamIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

class UsageError extends Error {}

const atLeastOne = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of 1 or more');
/** Runs per scenario are planned up front: seeds × repeats of them must fit in memory, and in a day. */
const MAX_TRIALS = 1000;
/** Each parallel run is a proxy, a mock dealer and a buyer process at once. */
const MAX_PARALLEL = 64;
const MAX_SEED = 2 ** 31 - 1;

/** The exam's values, each checked by a shared parser: the refusal names the flag as every command's does. */
const EXAM_VALUES = {
  seeds: { flag: 'seeds', parse: wholeNumber(1, MAX_TRIALS, `a whole number from 1 to ${MAX_TRIALS}`) },
  parallel: {
    flag: 'parallel',
    parse: wholeNumber(1, MAX_PARALLEL, `a whole number from 1 to ${MAX_PARALLEL} (each run is a proxy, a mock dealer and a buyer)`),
  },
  repeat: { flag: 'repeat', parse: wholeNumber(1, MAX_TRIALS, `a whole number from 1 to ${MAX_TRIALS}`) },
  shrinkBudget: { flag: 'shrink-budget', parse: atLeastOne },
  seed: { flag: 'seed', parse: wholeNumber(0, MAX_SEED, `a whole number from 0 to ${MAX_SEED}`) },
  timeoutMs: { flag: 'timeout', parse: positiveDuration },
  slowDealerBudgetMs: { flag: 'slow-dealer-budget', parse: positiveDuration },
  target: RUN_OPTIONS.target,
  profile: RUN_OPTIONS.profile,
  dealers: RUN_OPTIONS.dealers,
  mockDealers: RUN_OPTIONS.mockDealers,
};

/** One value checked by its row; a refused one is a usage error. */
function value<K extends keyof typeof EXAM_VALUES>(name: K, given: string | string[] | undefined): ReturnType<(typeof EXAM_VALUES)[K]['parse']> | undefined {
  try {
    return checkOption(EXAM_VALUES[name], name, given, 'flag') as ReturnType<(typeof EXAM_VALUES)[K]['parse']> | undefined;
  } catch (e) {
    if (e instanceof OptionError) throw new UsageError(e.message);
    throw e;
  }
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`--${flag}: give a file name`);
  return value;
}

type ListRequest = { list: 'requirements'; profile?: Profile; json: boolean };

type ExamCommandOptions = ExamOptions & { json: boolean; junit?: string; html?: string; baseline?: string; writeBaseline?: string; shrinkBudget?: number };

export function parseExamArgs(argv: string[]): ExamCommandOptions | ListRequest | 'help' {
  const split = argv.indexOf('--');
  const flags = split >= 0 ? argv.slice(0, split) : argv;
  const command = split >= 0 ? argv.slice(split + 1) : [];
  let values;
  try {
    ({ values } = parseArgs({
      args: flags,
      allowPositionals: false,
      options: {
        scenarios: { type: 'string' },
        all: { type: 'boolean' },
        target: { type: 'string' },
        dealer: { type: 'string', multiple: true },
        'mock-dealers': { type: 'string' },
        'slow-dealer-budget': { type: 'string' },
        timeout: { type: 'string' },
        seeds: { type: 'string' },
        seed: { type: 'string' },
        parallel: { type: 'string' },
        repeat: { type: 'string' },
        shrink: { type: 'boolean' },
        'shrink-budget': { type: 'string' },
        baseline: { type: 'string' },
        'write-baseline': { type: 'string' },
        profile: { type: 'string' },
        'require-exit-0': { type: 'boolean' },
        'allow-incomplete': { type: 'boolean' },
        'card-trust': { type: 'boolean' },
        'list-requirements': { type: 'boolean' },
        json: { type: 'boolean' },
        junit: { type: 'string' },
        html: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    const message = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(
      split < 0 && /Unexpected argument/.test(message) ? `the buyer command goes after "--": aap-chaos exam [options] -- <buyer command…>` : message,
    );
  }
  if (values.help) return 'help';
  if (values['list-requirements']) {
    if (command.length > 0) throw new UsageError('--list-requirements takes no buyer command');
    if (values.profile !== undefined && !(PROFILES as readonly string[]).includes(values.profile))
      throw new UsageError(`--profile: "${values.profile}" is not one of ${PROFILES.join(', ')} (with --list-requirements)`);
    return { list: 'requirements', profile: values.profile as Profile | undefined, json: values.json ?? false };
  }
  if (command.length === 0) throw new UsageError('no buyer command: put it after "--", e.g. aap-chaos exam -- python3 buyer.py');
  if (values.all && values.scenarios !== undefined) throw new UsageError('--all and --scenarios exclude each other');
  const target = value('target', values.target);
  const profile = value('profile', values.profile);
  const dealers = value('dealers', values.dealer);
  const mockDealers = value('mockDealers', values['mock-dealers']);
  if (target !== undefined && (dealers !== undefined || mockDealers !== undefined))
    throw new UsageError('--target and --dealer / --mock-dealers exclude each other (name that dealer: --dealer NAME=URL)');
  const slowBudget = value('slowDealerBudgetMs', values['slow-dealer-budget']);
  const seeds = value('seeds', values.seeds) ?? 1;
  const seed = value('seed', values.seed);
  if (seed !== undefined && seed + seeds - 1 > MAX_SEED)
    throw new UsageError(`--seed ${seed} --seeds ${seeds}: the last seed would be ${seed + seeds - 1}, past ${MAX_SEED}`);
  return {
    command,
    scenarios: values.scenarios,
    all: values.all,
    target,
    dealers,
    mockDealers,
    ...(slowBudget !== undefined ? { thresholds: { slow_dealer_budget_ms: slowBudget } } : {}),
    timeoutMs: value('timeoutMs', values.timeout) ?? 60_000,
    seeds,
    seed,
    parallel: value('parallel', values.parallel) ?? 1,
    repeat: value('repeat', values.repeat) ?? 1,
    shrinkBudget: values.shrink || values['shrink-budget'] !== undefined ? (value('shrinkBudget', values['shrink-budget']) ?? 30) : undefined,
    baseline: nonEmpty(values.baseline, 'baseline'),
    writeBaseline: nonEmpty(values['write-baseline'], 'write-baseline'),
    profile,
    requireExit0: values['require-exit-0'] ?? false,
    allowIncomplete: values['allow-incomplete'] ?? false,
    cardTrust: values['card-trust'] ?? false,
    json: values.json ?? false,
    junit: values.junit,
    html: values.html,
  };
}

/** Runs `aap-chaos exam` with the arguments after "exam"; resolves with the exit code. */
export async function runExamCommand(argv: string[], io: ExamIo): Promise<number> {
  let opts;
  try {
    opts = parseExamArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`aap-chaos exam: ${e.message}\n\nRun "aap-chaos exam --help" for usage.`);
    return 2;
  }
  if (opts === 'help') {
    io.out(EXAM_USAGE);
    return 0;
  }
  if ('list' in opts) {
    const rows = listRequirements(opts.profile);
    io.out(opts.json ? JSON.stringify(rows, null, 2) : formatRequirements(rows));
    return 0;
  }
  let result;
  const stopOnSignal = stopBuyersOnSignals(io);
  try {
    // One key for the whole exam, shrinking's runs included.
    if (opts.cardTrust) opts.cardKey = await newExamCardKey();
    // The baseline is checked against the battery before any buyer starts.
    const battery = withUntidyTwins(await loadBattery(await scenarioRefs(opts)));
    const baseline =
      opts.baseline === undefined
        ? undefined
        : await loadBaseline(
            opts.baseline,
            battery.map((b) => b.name),
          );
    result = await runExam({ ...opts, progress: opts.json ? undefined : (line) => io.err(`exam: ${line}`) }, battery);
    if (opts.writeBaseline !== undefined) {
      const text = baselineYaml(result.scorecard, baseline);
      try {
        await writeFile(opts.writeBaseline, text, 'utf8');
      } catch (e) {
        io.err(`aap-chaos exam: --write-baseline: cannot write ${opts.writeBaseline}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        return 2;
      }
      io.err(`exam: wrote the baseline ${opts.writeBaseline}: give each entry its reason`);
      result.scorecard = applyBaseline(
        result.scorecard,
        parseBaseline(
          opts.writeBaseline,
          text,
          battery.map((b) => b.name),
        ),
      );
    } else if (baseline) result.scorecard = applyBaseline(result.scorecard, baseline);
  } catch (e) {
    if (e instanceof BatteryError || e instanceof BuyerStartError || e instanceof BaselineError) {
      io.err(`aap-chaos exam: ${e.message}`);
      return 2;
    }
    io.err(`aap-chaos exam: ${(e as Error)?.message ?? String(e)}`);
    return 2;
  } finally {
    stopOnSignal.dispose();
  }
  const { scorecard } = result;
  // Shrinking first, so the HTML report can link each FAIL to its reproducer.
  let reproducers;
  try {
    reproducers =
      opts.shrinkBudget === undefined
        ? undefined
        : await shrinkFailures(
            scorecard.scenarios.flatMap((s) => s.runs),
            result.battery,
            opts,
            opts.shrinkBudget,
          );
  } catch (e) {
    io.err(`aap-chaos exam: --shrink: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return 2;
  }
  const files: [string | undefined, string, () => string][] = [
    [opts.junit, '--junit', () => examJUnit(scorecard)],
    [opts.html, '--html', () => examHtml(scorecard, new Date(), reproducers)],
  ];
  for (const [file, flag, render] of files) {
    if (file === undefined) continue;
    try {
      await writeFile(file, render(), 'utf8');
    } catch (e) {
      io.err(`aap-chaos exam: ${flag}: cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return 2;
    }
  }
  io.out(
    opts.json
      ? JSON.stringify({ ...(scorecardJson(scorecard) as object), ...(reproducers ? { reproducers } : {}) }, null, 2)
      : formatScorecard(scorecard) + (reproducers ? `\n${formatReproducers(reproducers)}` : ''),
  );
  return scorecard.exitCode;
}

/**
 * Ctrl-C (or SIGTERM) on the exam: buyers run in process groups of their own, which the terminal's
 * signal does not reach, so the signal is passed on to each running buyer's group (SIGKILL after a
 * grace period; at once on a second signal) before the exam exits with 128 + the signal number.
 */
function stopBuyersOnSignals(io: ExamIo): { dispose(): void } {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stopping) {
      void stopRunningBuyers('SIGKILL', true).then(() => process.exit(code));
      return;
    }
    stopping = true;
    io.err(`aap-chaos exam: ${signal}: stopping the buyer, then exiting (again to stop at once)`);
    void stopRunningBuyers(signal).then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
