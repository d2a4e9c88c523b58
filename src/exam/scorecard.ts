/**
 * The exam's verdicts: per run (one scenario under one seed) the report's verdict for each check,
 * merged over clients; per scenario the verdicts merged over seeds, where a check that fails under
 * some seeds and not under others is FLAKY; per check the verdict over the whole battery; and the
 * overall verdict and exit code. Coverage is part of the verdict: the exam PASSes only when every
 * check of the requirement set PASSed somewhere and FAILed nowhere; with no FAIL but a check never
 * PASSed, it is INCOMPLETE.
 */
import type { Profile } from '../protocol/codes.js';
import { CHECK_NAMES, CHECKS, type CheckName, type Verdict } from '../report/checks/index.js';
import type { JournalEntry } from '../journal/entry.js';
import type { Report } from '../report/report.js';
import type { BuyerRun } from './buyer-process.js';
import { passK } from './pass-k.js';

/** The column `--require-exit-0` adds: the buyer must end with exit code 0. */
export const EXIT_CHECK = 'buyer-exit';
export type ExamCheck = CheckName | typeof EXIT_CHECK;
export type CellVerdict = Verdict | 'FLAKY';

export interface ExamRun {
  scenario: string;
  seed: number;
  /** Which of the scenario's runs this is (0-based, in seed then repeat order): the k of pass^k. */
  trial: number;
  buyer: BuyerRun;
  report: Report;
  /** Every journal line of the run, in finishing order. */
  journal: JournalEntry[];
  verdicts: Record<ExamCheck, Verdict>;
  /** Per check, the evidence journal ids of its FAILs. */
  evidence: Partial<Record<ExamCheck, string[]>>;
  /** Explanations the exam found itself (a differential check), where the run's report has none. */
  explanations: Partial<Record<ExamCheck, string>>;
  ok: boolean;
}

/** What a baseline did to a scorecard. */
export interface BaselineOutcome {
  file: string;
  /** FAILs (or FLAKY cells) the baseline covers. */
  expected: { scenario: string; check: ExamCheck; requirement: string; reason: string; line: number }[];
  /** Entries whose requirement passed in every run they cover: delete them. */
  stale: { requirement: string; scenario?: string; reason: string; line: number }[];
}

/** What the exam says overall. */
export type ExamVerdict = 'PASS' | 'FAIL' | 'INCOMPLETE';

/** Exit codes of `aap-chaos exam`. */
export const EXAM_EXIT = { pass: 0, fail: 1, usage: 2, incomplete: 3 } as const;

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
  /** Per check, its verdict over the whole battery. */
  battery: Record<ExamCheck, CellVerdict>;
  /** The checks whose requirement applies to the profiles the runs spoke: each must PASS somewhere. */
  required: ExamCheck[];
  /** Required checks that never PASSed (and never FAILed), with why. */
  incomplete: { check: ExamCheck; id?: string; verdict: CellVerdict }[];
  /** No check FAILed and none is FLAKY. */
  ok: boolean;
  verdict: ExamVerdict;
  summary: { pass: number; fail: number; flaky: number; not_exercised: number; not_applicable: number };
  exitCode: 0 | 1 | 3;
  /** Set when a --baseline was applied: the FAILs it expected and its stale entries. */
  baseline?: BaselineOutcome;
}

/**
 * The report's checks; those across dealers only when a report graded them (a several-dealer
 * exam), and opt-in ones only when the exam asks for them.
 */
function gradedNames(reports: Report[], optIn: readonly CheckName[]): CheckName[] {
  const dealers = reports.some((r) => r.checks.some((c) => CHECKS[c.check].acrossDealers));
  return CHECK_NAMES.filter((name) => (dealers || !CHECKS[name].acrossDealers) && (!CHECKS[name].optIn || optIn.includes(name)));
}

/** Verdicts merged: a FAIL anywhere fails; a PASS shows the check was exercised; NOT EXERCISED says the buyer could have been. */
function merge(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('FAIL')) return 'FAIL';
  if (verdicts.includes('PASS')) return 'PASS';
  return verdicts.includes('NOT EXERCISED') || verdicts.length === 0 ? 'NOT EXERCISED' : 'NOT APPLICABLE';
}

function mergeCells(cells: CellVerdict[]): CellVerdict {
  if (cells.includes('FAIL')) return 'FAIL';
  return cells.includes('FLAKY') ? 'FLAKY' : merge(cells as Verdict[]);
}

/** The profiles the runs spoke, as their journal lines record them. */
function profilesOf(runs: readonly ExamRun[]): Set<Profile> {
  return new Set(runs.flatMap((r) => r.journal.map((e) => e.profile).filter((p): p is Profile => p !== undefined)));
}

export function gradeRun(
  scenario: string,
  seed: number,
  trial: number,
  buyer: BuyerRun,
  report: Report,
  journal: JournalEntry[],
  requireExit0: boolean,
  optIn: readonly CheckName[] = [],
): ExamRun {
  const verdicts = {} as Record<ExamCheck, Verdict>;
  const evidence: ExamRun['evidence'] = {};
  for (const check of gradedNames([report], optIn)) {
    const results = report.checks.filter((c) => c.check === check);
    verdicts[check] = merge(results.map((c) => c.verdict));
    const failed = results.filter((c) => c.verdict === 'FAIL').flatMap((c) => c.evidence);
    if (failed.length > 0) evidence[check] = failed;
  }
  if (requireExit0) verdicts[EXIT_CHECK] = buyer.exitCode === 0 ? 'PASS' : 'FAIL';
  const ok = !Object.values(verdicts).includes('FAIL');
  return { scenario, seed, trial, buyer, report, journal, verdicts, evidence, explanations: {}, ok };
}

export function buildScorecard(
  battery: { name: string; ref: string }[],
  runs: ExamRun[],
  opts: { requireExit0: boolean; allowIncomplete?: boolean; optIn?: readonly CheckName[] },
): Scorecard {
  const checks: ExamCheck[] = [
    ...gradedNames(
      runs.map((r) => r.report),
      opts.optIn ?? [],
    ),
    ...(opts.requireExit0 ? [EXIT_CHECK as ExamCheck] : []),
  ];
  const summary = { pass: 0, fail: 0, flaky: 0, not_exercised: 0, not_applicable: 0 };
  const scenarios = battery.map(({ name, ref }): ScenarioCard => {
    const own = runs.filter((r) => r.scenario === name).sort((a, b) => a.trial - b.trial);
    const verdicts = {} as Record<ExamCheck, CellVerdict>;
    for (const check of checks) {
      const seen = own.map((r) => r.verdicts[check]);
      const fails = seen.filter((v) => v === 'FAIL').length;
      verdicts[check] = fails > 0 && fails < seen.length ? 'FLAKY' : merge(seen);
      const cell = verdicts[check];
      if (cell === 'PASS') summary.pass++;
      else if (cell === 'FAIL') summary.fail++;
      else if (cell === 'FLAKY') summary.flaky++;
      else if (cell === 'NOT APPLICABLE') summary.not_applicable++;
      else summary.not_exercised++;
    }
    const flaky = own.some((r) => r.ok) && own.some((r) => !r.ok);
    return { scenario: name, ref, runs: own, verdicts, flaky, ok: own.every((r) => r.ok) };
  });
  const ok = scenarios.every((s) => s.ok);
  const union = Object.fromEntries(checks.map((c) => [c, mergeCells(scenarios.map((s) => s.verdicts[c]))])) as Record<ExamCheck, CellVerdict>;
  const profiles = profilesOf(runs);
  // A requirement of a profile no run spoke is not asked for (version under 1.3); with no profile known, all are.
  const required = checks.filter((c) => c === EXIT_CHECK || profiles.size === 0 || CHECKS[c as CheckName].requirement.profiles.some((p) => profiles.has(p)));
  const incomplete = required
    .filter((c) => union[c] !== 'PASS' && union[c] !== 'FAIL' && union[c] !== 'FLAKY')
    .map((c) => ({ check: c, id: c === EXIT_CHECK ? undefined : CHECKS[c as CheckName].requirement.id, verdict: union[c] }));
  const verdict: ExamVerdict = !ok ? 'FAIL' : incomplete.length > 0 ? 'INCOMPLETE' : 'PASS';
  const exitCode = verdict === 'FAIL' ? EXAM_EXIT.fail : verdict === 'INCOMPLETE' && !opts.allowIncomplete ? EXAM_EXIT.incomplete : EXAM_EXIT.pass;
  return { checks, scenarios, battery: union, required, incomplete, ok, verdict, summary, exitCode };
}

/** The requirement id of an exam column, when it is a check. */
export function requirementIdOf(check: ExamCheck): string | undefined {
  return check === EXIT_CHECK ? undefined : CHECKS[check].requirement.id;
}

/** The scorecard as JSON: verdicts, buyer exits and outputs, and each run's report (journals stay out). */
export function scorecardJson(card: Scorecard): unknown {
  return {
    ok: card.ok,
    verdict: card.verdict,
    exit_code: card.exitCode,
    summary: card.summary,
    checks: card.checks,
    requirements: Object.fromEntries(card.checks.flatMap((c) => (requirementIdOf(c) ? [[c, requirementIdOf(c)]] : []))),
    battery: card.battery,
    required: card.required,
    incomplete: card.incomplete,
    pass_k: passK(card),
    ...(card.baseline ? { baseline: card.baseline } : {}),
    scenarios: card.scenarios.map((s) => ({
      scenario: s.scenario,
      ref: s.ref,
      ok: s.ok,
      flaky: s.flaky,
      verdicts: s.verdicts,
      runs: s.runs.map((r) => ({
        seed: r.seed,
        trial: r.trial,
        ok: r.ok,
        verdicts: r.verdicts,
        evidence: r.evidence,
        explanations: r.explanations,
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
