/**
 * Expected-failure baselines for the exam: a list of `{requirement, scenario?, reason}` entries
 * (YAML or JSON). A FAIL the baseline covers does not fail the exam and shows as EXPECTED FAIL; an
 * entry whose requirement now passes everywhere it covers is STALE and fails the exam, so a
 * baseline can only shrink. Problems in the file name it with the line of the entry at fault.
 */
import { readRegularFile } from '../common/regular-file.js';
import { LineCounter, parseDocument, isMap, isSeq, stringify, type Node } from 'yaml';
import { CHECK_NAMES, CHECKS, type CheckName } from '../report/checks/index.js';
import type { BaselineOutcome, ExamCheck, Scorecard } from './scorecard.js';

/** A baseline is a short hand-written list: anything larger is a mistake, not a baseline. */
const MAX_BYTES = 1024 * 1024;

export interface BaselineEntry {
  requirement: string;
  scenario?: string;
  reason: string;
  /** 1-based line of the entry in its file (0 for entries made in memory). */
  line: number;
}

export interface Baseline {
  file: string;
  entries: BaselineEntry[];
}

export class BaselineError extends Error {
  override name = 'BaselineError';
}

const ID_TO_CHECK = new Map(CHECK_NAMES.map((c) => [CHECKS[c].requirement.id, c] as const));

/** The check a requirement id names, if any. */
export function checkOfRequirement(id: string): CheckName | undefined {
  return ID_TO_CHECK.get(id);
}

/** Reads and checks a baseline against the requirement ids and the scenarios of this exam. */
export async function loadBaseline(file: string, scenarios: readonly string[]): Promise<Baseline> {
  const read = readRegularFile(file, { maxBytes: MAX_BYTES, what: 'a baseline' });
  if (!read.ok) throw new BaselineError(`--baseline: ${file}: ${read.message}`);
  return parseBaseline(file, read.bytes.toString('utf8'), scenarios);
}

export function parseBaseline(file: string, text: string, scenarios: readonly string[]): Baseline {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : 1);
  const fail = (line: number, message: string): never => {
    throw new BaselineError(`${file}:${line}: ${message}`);
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    fail(e.linePos?.[0]?.line ?? 1, e.message.split('\n')[0]!);
  }
  const root = doc.contents;
  if (root === null || root === undefined) return { file, entries: [] };
  if (!isSeq(root)) fail(at(root as Node), 'a baseline is a list of {requirement, scenario?, reason} entries');
  const known = [...ID_TO_CHECK.keys()];
  const entries = (root as { items: unknown[] }).items.map((item): BaselineEntry => {
    const node = item as Node;
    const line = at(node);
    if (!isMap(node)) return fail(line, 'each entry is a mapping with requirement, reason and optionally scenario');
    const value: Record<string, unknown> = node.toJSON();
    const extra = Object.keys(value).find((k) => !['requirement', 'scenario', 'reason'].includes(k));
    if (extra !== undefined) fail(line, `unknown key "${extra}" (an entry has requirement, scenario, reason)`);
    const { requirement, scenario, reason } = value;
    if (typeof requirement !== 'string') return fail(line, 'requirement is missing or not a string');
    if (!ID_TO_CHECK.has(requirement)) fail(line, `unknown requirement "${requirement}" (known: ${known.join(', ')}; see aap-chaos exam --list-requirements)`);
    if (scenario !== undefined && (typeof scenario !== 'string' || !scenarios.includes(scenario)))
      fail(line, `scenario "${String(scenario)}" is not in this exam (its scenarios: ${scenarios.join(', ')})`);
    if (typeof reason !== 'string' || reason.trim() === '') return fail(line, 'reason is missing: say why this FAIL is expected');
    return { requirement, scenario: scenario as string | undefined, reason, line };
  });
  return { file, entries };
}

const covers = (entry: BaselineEntry, scenario: string, check: ExamCheck) =>
  ID_TO_CHECK.get(entry.requirement) === check && (entry.scenario === undefined || entry.scenario === scenario);

/**
 * Applies a baseline: covered FAILs stop failing their runs; an entry is STALE when no run it
 * covers FAILs its check and at least one PASSes it (an entry nothing exercised says nothing
 * either way and stays). Verdict and exit code follow: a stale entry is a FAIL (exit 1).
 */
export function applyBaseline(card: Scorecard, baseline: Baseline): Scorecard {
  const outcome: BaselineOutcome = { file: baseline.file, expected: [], stale: [] };
  for (const entry of baseline.entries) {
    const check = ID_TO_CHECK.get(entry.requirement)!;
    const cells = card.scenarios
      .filter((s) => entry.scenario === undefined || s.scenario === entry.scenario)
      .flatMap((s) => s.runs.map((r) => r.verdicts[check]));
    if (!cells.includes('FAIL') && cells.includes('PASS')) outcome.stale.push(entry);
  }
  const expectedFail = (scenario: string, check: ExamCheck) => baseline.entries.find((e) => covers(e, scenario, check));
  for (const s of card.scenarios) {
    for (const check of card.checks) {
      if (s.verdicts[check] !== 'FAIL' && s.verdicts[check] !== 'FLAKY') continue;
      const entry = expectedFail(s.scenario, check);
      if (entry) outcome.expected.push({ scenario: s.scenario, check, requirement: entry.requirement, reason: entry.reason, line: entry.line });
    }
  }
  const unexpected = (s: Scorecard['scenarios'][number]) =>
    s.runs.some((r) => card.checks.some((c) => r.verdicts[c] === 'FAIL' && !expectedFail(s.scenario, c)));
  const scenarios = card.scenarios.map((s) => ({ ...s, ok: !unexpected(s) }));
  const ok = scenarios.every((s) => s.ok) && outcome.stale.length === 0;
  const verdict = !ok ? 'FAIL' : card.incomplete.length > 0 ? 'INCOMPLETE' : 'PASS';
  const exitCode = verdict === 'FAIL' ? 1 : verdict === 'INCOMPLETE' && card.exitCode === 3 ? 3 : 0;
  return { ...card, scenarios, ok, verdict, exitCode, baseline: outcome };
}

/** The FAILs of a scorecard as a baseline file, one entry per scenario × requirement, reasons TODO (or kept from `previous`). */
export function baselineYaml(card: Scorecard, previous?: Baseline): string {
  const entries: { requirement: string; scenario: string; reason: string }[] = [];
  for (const s of card.scenarios) {
    for (const check of card.checks) {
      const requirement = check in CHECKS ? CHECKS[check as CheckName].requirement.id : undefined;
      if (requirement === undefined || (s.verdicts[check] !== 'FAIL' && s.verdicts[check] !== 'FLAKY')) continue;
      const kept = previous?.entries.find((e) => covers(e, s.scenario, check));
      entries.push({ requirement, scenario: s.scenario, reason: kept?.reason ?? 'TODO' });
    }
  }
  const header =
    '# aap-chaos exam baseline: FAILs expected for now (--baseline). Say why in each reason;\n# delete an entry once its requirement passes (the exam calls such an entry STALE and fails).\n';
  return header + (entries.length === 0 ? '[]\n' : stringify(entries));
}
