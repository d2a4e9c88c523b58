/**
 * The exam's verdicts: per run (one scenario under one seed) the report's verdict for each check,
 * merged over clients; per scenario the verdicts merged over seeds, where a check that fails under
 * some seeds and not under others is FLAKY; and the overall verdict and exit code.
 */
import { CHECK_NAMES, DEALER_CHECK_NAMES, type CheckName, type Verdict } from '../journal/checks/check.js';
import type { JournalEntry } from '../journal/entry.js';
import type { Report } from '../journal/report.js';
import type { BuyerRun } from './buyer-process.js';

/** The column `--require-exit-0` adds: the buyer must end with exit code 0. */
export const EXIT_CHECK = 'buyer-exit';
export type ExamCheck = CheckName | typeof EXIT_CHECK;
export type CellVerdict = Verdict | 'FLAKY';

export interface ExamRun {
  scenario: string;
  seed: number;
  buyer: BuyerRun;
  report: Report;
  /** Every journal line of the run, in finishing order. */
  journal: JournalEntry[];
  verdicts: Record<ExamCheck, Verdict>;
  /** Per check, the evidence journal ids of its FAILs. */
  evidence: Partial<Record<ExamCheck, string[]>>;
  ok: boolean;
}

export interface ScenarioCard {
  scenario: string;
  ref: string;
  runs: ExamRun[];
  verdicts: Record<ExamCheck, CellVerdict>;
  /** Passes under some seeds, fails under others. */
  flaky: boolean;
  ok: boolean;
}

export interface Scorecard {
  checks: ExamCheck[];
  scenarios: ScenarioCard[];
  ok: boolean;
  summary: { pass: number; fail: number; flaky: number; not_exercised: number };
  exitCode: 0 | 1;
}

/** The report's checks, with the ones across dealers when a report graded them (a several-dealer exam). */
function gradedNames(reports: Report[]): CheckName[] {
  const dealers = reports.some((r) => r.checks.some((c) => (DEALER_CHECK_NAMES as readonly string[]).includes(c.check)));
  return [...CHECK_NAMES, ...(dealers ? DEALER_CHECK_NAMES : [])];
}

function merge(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('FAIL')) return 'FAIL';
  return verdicts.includes('PASS') ? 'PASS' : 'NOT EXERCISED';
}

export function gradeRun(scenario: string, seed: number, buyer: BuyerRun, report: Report, journal: JournalEntry[], requireExit0: boolean): ExamRun {
  const verdicts = {} as Record<ExamCheck, Verdict>;
  const evidence: ExamRun['evidence'] = {};
  for (const check of gradedNames([report])) {
    const results = report.checks.filter((c) => c.check === check);
    verdicts[check] = merge(results.map((c) => c.verdict));
    const failed = results.filter((c) => c.verdict === 'FAIL').flatMap((c) => c.evidence);
    if (failed.length > 0) evidence[check] = failed;
  }
  if (requireExit0) verdicts[EXIT_CHECK] = buyer.exitCode === 0 ? 'PASS' : 'FAIL';
  const ok = !Object.values(verdicts).includes('FAIL');
  return { scenario, seed, buyer, report, journal, verdicts, evidence, ok };
}

export function buildScorecard(battery: { name: string; ref: string }[], runs: ExamRun[], requireExit0: boolean): Scorecard {
  const checks: ExamCheck[] = [...gradedNames(runs.map((r) => r.report)), ...(requireExit0 ? [EXIT_CHECK as ExamCheck] : [])];
  const summary = { pass: 0, fail: 0, flaky: 0, not_exercised: 0 };
  const scenarios = battery.map(({ name, ref }): ScenarioCard => {
    const own = runs.filter((r) => r.scenario === name).sort((a, b) => a.seed - b.seed);
    const verdicts = {} as Record<ExamCheck, CellVerdict>;
    for (const check of checks) {
      const seen = own.map((r) => r.verdicts[check]);
      const fails = seen.filter((v) => v === 'FAIL').length;
      verdicts[check] = fails > 0 && fails < seen.length ? 'FLAKY' : merge(seen);
      const cell = verdicts[check];
      if (cell === 'PASS') summary.pass++;
      else if (cell === 'FAIL') summary.fail++;
      else if (cell === 'FLAKY') summary.flaky++;
      else summary.not_exercised++;
    }
    const flaky = own.some((r) => r.ok) && own.some((r) => !r.ok);
    return { scenario: name, ref, runs: own, verdicts, flaky, ok: own.every((r) => r.ok) };
  });
  const ok = scenarios.every((s) => s.ok);
  return { checks, scenarios, ok, summary, exitCode: ok ? 0 : 1 };
}

/** The scorecard as JSON: verdicts, buyer exits and outputs, and each run's report (journals stay out). */
export function scorecardJson(card: Scorecard): unknown {
  return {
    ok: card.ok,
    exit_code: card.exitCode,
    summary: card.summary,
    checks: card.checks,
    scenarios: card.scenarios.map((s) => ({
      scenario: s.scenario,
      ref: s.ref,
      ok: s.ok,
      flaky: s.flaky,
      verdicts: s.verdicts,
      runs: s.runs.map((r) => ({
        seed: r.seed,
        ok: r.ok,
        verdicts: r.verdicts,
        evidence: r.evidence,
        buyer: {
          exit_code: r.buyer.exitCode,
          signal: r.buyer.signal,
          timed_out: r.buyer.timedOut,
          duration_ms: r.buyer.durationMs,
          stdout: r.buyer.stdout,
          stderr: r.buyer.stderr,
        },
        journal_lines: r.journal.length,
        report: r.report,
      })),
    })),
  };
}
