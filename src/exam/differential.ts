/**
 * The differential half of the exam: `payload-by-type` cannot be read from one journal, since a
 * buyer that picks the AAP payload by position behaves well as long as the entries come in the
 * usual order. So a battery scenario named in UNTIDY_TWINS runs twice: as written, and as its
 * "untidy twin" with `envelope: {shuffle: true, unknown_detail: true}` on every reply, which
 * reorders every error's `data` entries and adds one of an unknown `@type`. The twin's faults are
 * the same (counted rules, same seed), so a buyer that reads the payload by `@type` sends the
 * same requests and earns the same verdicts in both runs.
 */
import type { Scenario } from '../scenario/load.js';
import { CHECK_NAMES } from '../report/checks/index.js';
import type { JournalEntry } from '../journal/entry.js';
import type { BatteryScenario } from './battery.js';
import type { ExamRun } from './scorecard.js';

/** Battery scenarios that get an untidy twin: their faults are counted, not drawn, so both runs meet the same ones. */
export const UNTIDY_TWINS: readonly string[] = ['lead-recovery'];
const TWIN_SUFFIX = '+untidy-envelopes';
const UNTIDY_RULE = 'untidy-envelopes';
const CHECK = 'payload-by-type';

/** The battery with each twin right after its scenario. */
export function withUntidyTwins(battery: readonly BatteryScenario[]): BatteryScenario[] {
  return battery.flatMap((b) => {
    if (!UNTIDY_TWINS.includes(b.name)) return [b];
    const scenario: Scenario = {
      ...b.scenario,
      scenario: b.name + TWIN_SUFFIX,
      rules: [{ id: UNTIDY_RULE, envelope: { shuffle: true, unknown_detail: true } }, ...(b.scenario.rules ?? [])],
    };
    return [b, { ref: b.ref, name: b.name + TWIN_SUFFIX, scenario, twinOf: b.name }];
  });
}

/** What the buyer did, request by request: the skill (or method) and what it asked. */
function reactions(journal: readonly JournalEntry[]): { entry: JournalEntry; what: string }[] {
  return journal
    .filter((e) => e.method !== undefined)
    .sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : 1))
    .map((entry) => ({ entry, what: `${entry.skill ?? entry.method} ${entry.request_hash ?? ''}`.trim() }));
}

function compare(base: ExamRun, twin: ExamRun): { verdict: 'PASS' | 'FAIL' | 'NOT EXERCISED'; evidence: string[]; explanation: string } {
  const untidied = twin.journal.filter((e) => e.faults?.some((f) => f.rule === UNTIDY_RULE)).length;
  if (untidied === 0) return { verdict: 'NOT EXERCISED', evidence: [], explanation: 'no error envelope reached the buyer in the untidy run' };
  const changed = CHECK_NAMES.filter((c) => c !== CHECK && base.verdicts[c] !== twin.verdicts[c]);
  if (changed.length > 0) {
    const c = changed[0]!;
    return {
      verdict: 'FAIL',
      evidence: twin.evidence[c] ?? [],
      explanation: `with shuffled, padded error envelopes ${c} went from ${base.verdicts[c]} to ${twin.verdicts[c]}; find the AAP payload by its @type and ignore unknown entries`,
    };
  }
  const before = reactions(base.journal);
  const after = reactions(twin.journal);
  const at = after.findIndex((r, i) => before[i]?.what !== r.what);
  if (at >= 0 || before.length !== after.length) {
    const i = at >= 0 ? at : Math.min(before.length, after.length);
    const was = before[i]?.what ?? 'nothing more';
    const now = after[i]?.what ?? 'nothing more';
    return {
      verdict: 'FAIL',
      evidence: after[i] ? [after[i]!.entry.id] : [],
      explanation: `with shuffled, padded error envelopes the buyer's request ${i + 1} was ${now} instead of ${was}; find the AAP payload by its @type and ignore unknown entries`,
    };
  }
  return {
    verdict: 'PASS',
    evidence: [],
    explanation: `the same ${after.length} requests and verdicts with ${untidied} shuffled, padded error envelopes as without`,
  };
}

/** Grades payload-by-type on every twin run against its scenario's run under the same seed. */
export function gradeUntidyTwins(battery: readonly BatteryScenario[], runs: ExamRun[]): void {
  for (const twin of battery.filter((b) => b.twinOf !== undefined)) {
    for (const run of runs.filter((r) => r.scenario === twin.name)) {
      const base = runs.find((r) => r.scenario === twin.twinOf && r.trial === run.trial);
      if (base === undefined) continue;
      const result = compare(base, run);
      run.verdicts[CHECK] = result.verdict;
      run.explanations[CHECK] = result.explanation;
      if (result.verdict === 'FAIL') run.evidence[CHECK] = result.evidence;
      run.ok = !Object.values(run.verdicts).includes('FAIL');
    }
  }
}
