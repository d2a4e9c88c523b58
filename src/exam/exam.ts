/**
 * `aap-chaos exam`: for each scenario of the battery and each seed, a proxy of its own on free
 * ports (in front of the target or a fresh embedded mock dealer), the buyer command run against
 * it, the journal graded with the report's checks, the proxy stopped. Runs go side by side up to
 * `parallel`; a buyer that cannot be started at all ends the exam.
 */
import type { JWK } from 'jose';
import { startRuntime } from '../runtime.js';
import { CARD_JWKS_PATH } from '../protocol/card-signature.js';
import { newExamCardKey } from './card-trust.js';
import { buildReport } from '../report/report.js';
import type { Thresholds } from '../report/thresholds.js';
import type { CheckName } from '../report/checks/index.js';
import type { DealerTarget } from '../option-values.js';
import { dealerEnv } from './dealer-env.js';
import type { ProfileSetting } from '../proxy/profile.js';
import { loadBattery, scenarioRefs, type BatteryScenario } from './battery.js';
import { BuyerStartError, runBuyer } from './buyer-process.js';
import { gradeUntidyTwins, withUntidyTwins } from './differential.js';
import { buildScorecard, gradeRun, type ExamRun, type Scorecard } from './scorecard.js';

export interface ExamOptions {
  /** The buyer command and its arguments, run without a shell. */
  command: string[];
  /** Comma-separated built-in names and scenario files (default: the default battery). */
  scenarios?: string;
  /** Every built-in scenario. */
  all?: boolean;
  /** The dealer to stand in front of (default: an embedded mock dealer per run). */
  target?: string;
  /** How long one buyer run may take before its process group is stopped. */
  timeoutMs: number;
  /** Seeds per scenario. */
  seeds: number;
  /** First seed (default: the scenario's own seed, else 1); further seeds count up from it. */
  seed?: number;
  /** Runs of the same seed (for buyers that are not deterministic on their own); default 1. */
  repeat?: number;
  /** Runs side by side. */
  parallel: number;
  /** A buyer exit code other than 0 is a FAIL. */
  requireExit0: boolean;
  /** An INCOMPLETE exam exits 0 instead of 3. */
  allowIncomplete?: boolean;
  profile?: ProfileSetting;
  /** Several dealers behind each run's proxy (`--dealer NAME=URL`), given to the buyer in AAP_DEALER_URLS. */
  dealers?: DealerTarget[];
  /** This many embedded mock dealers per run (`--mock-dealers N`). */
  mockDealers?: number;
  /** Report thresholds over the scenario's own (`--slow-dealer-budget`). */
  thresholds?: Partial<Thresholds>;
  /** Told when a run starts and ends (the CLI prints progress on stderr). */
  progress?: (line: string) => void;
  /**
   * Grade card trust (`--card-trust`): every run's proxy signs the cards it serves, the buyer gets
   * AAP_CARD_JWKS_URL, card-forgery joins the battery and card-trust becomes a required check.
   */
  cardTrust?: boolean;
  /** The private JWK the runs sign cards with under cardTrust; made once per exam when not given. */
  cardKey?: JWK;
}

/** The opt-in checks this exam grades. */
export function optInChecks(opts: Pick<ExamOptions, 'cardTrust'>): CheckName[] {
  return opts.cardTrust ? ['card-trust'] : [];
}

export interface PlannedRun {
  battery: BatteryScenario;
  seed: number;
  /** Position among the scenario's runs (seed by seed, each repeated). */
  trial: number;
}

/** Scenario × seed × repeat, in battery order. */
export function planRuns(battery: BatteryScenario[], opts: Pick<ExamOptions, 'seeds' | 'seed' | 'repeat'>): PlannedRun[] {
  const repeat = opts.repeat ?? 1;
  return battery.flatMap((b) => {
    const first = opts.seed ?? b.scenario.seed ?? 1;
    return Array.from({ length: opts.seeds * repeat }, (_, i) => ({ battery: b, seed: first + Math.floor(i / repeat), trial: i }));
  });
}

/** One buyer run against a proxy of its own (the shrinker re-runs through this too). */
export async function runOne(planned: PlannedRun, opts: ExamOptions): Promise<ExamRun> {
  const { battery, seed, trial } = planned;
  // Each run is on its own: its rule state in memory whatever AAP_CHAOS_STATE says (a live fleet on
  // this machine would otherwise hand it its scenario and its limits), and no admin token from the
  // environment (the buyer would need it, and it is the operator's).
  const runtime = await startRuntime({
    port: 0,
    adminPort: 0,
    target: opts.target,
    dealers: opts.dealers,
    mockDealers: opts.mockDealers,
    scenario: battery.scenario,
    seed,
    profile: opts.profile,
    state: 'memory',
    env: {},
    ...(opts.cardTrust ? { cardSigningKey: opts.cardKey } : {}),
  });
  let buyer;
  try {
    buyer = await runBuyer(
      opts.command,
      {
        AAP_DEALER_URL: runtime.url,
        AAP_CHAOS_SCENARIO: battery.name,
        AAP_CHAOS_ADMIN_URL: runtime.adminUrl,
        AAP_CHAOS_SEED: String(seed),
        ...dealerEnv(runtime.dealerUrls),
        ...(opts.cardTrust ? { AAP_CARD_JWKS_URL: runtime.url + CARD_JWKS_PATH } : {}),
      },
      opts.timeoutMs,
    );
  } finally {
    // Every request has finished and journaled itself once the proxy is closed.
    await runtime.close();
  }
  // The buyer's own run time is what slow-dealer holds to its budget (the journal sees only requests).
  const thresholds = { ...(runtime.engine?.reportThresholds as Partial<Thresholds> | undefined), ...opts.thresholds };
  const report = buildReport(runtime.journal.all(), { thresholds, buyerRunMs: buyer.durationMs });
  return gradeRun(battery.name, seed, trial, buyer, report, runtime.journal.all(), opts.requireExit0, optInChecks(opts));
}

export interface ExamResult {
  scorecard: Scorecard;
  battery: BatteryScenario[];
}

/** Runs the exam over `loaded` (the battery with its untidy twins), else over the battery the options name. */
export async function runExam(given: ExamOptions, loaded?: BatteryScenario[]): Promise<ExamResult> {
  const opts = given.cardTrust && given.cardKey === undefined ? { ...given, cardKey: await newExamCardKey() } : given;
  const battery = loaded ?? withUntidyTwins(await loadBattery(await scenarioRefs(opts)));
  const planned = planRuns(battery, opts);
  const runs: ExamRun[] = [];
  let next = 0;
  let startFailure: BuyerStartError | undefined;
  const worker = async () => {
    while (next < planned.length && !startFailure) {
      const p = planned[next++]!;
      opts.progress?.(`${p.battery.name} (seed ${p.seed}): running`);
      try {
        const run = await runOne(p, opts);
        runs.push(run);
        opts.progress?.(`${p.battery.name} (seed ${p.seed}): ${run.ok ? 'PASS' : 'FAIL'} in ${(run.buyer.durationMs / 1000).toFixed(1)} s`);
      } catch (err) {
        if (!(err instanceof BuyerStartError)) throw err;
        startFailure = err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.parallel, planned.length) }, worker));
  if (startFailure) throw startFailure;
  gradeUntidyTwins(battery, runs);
  return {
    scorecard: buildScorecard(battery, runs, { requireExit0: opts.requireExit0, allowIncomplete: opts.allowIncomplete, optIn: optInChecks(opts) }),
    battery,
  };
}
