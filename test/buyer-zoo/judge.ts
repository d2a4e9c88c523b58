/**
 * The zoo's bookkeeping: each (member, scenario, check) cell compared with the oracle, and the
 * confusion table per check. A cell the machine made unjudgeable is counted apart, with its reason,
 * and only when the buyer's own clock (the same clock as the proxy's: one process) or the journal
 * proves it: a request the buyer had sent before it read the reply it is judged against (they
 * crossed on the wire); the machine holding a request or a reply between buyer and proxy longer
 * than the timing tolerance; the proxy failing requests no rule asked it to (its own timeouts on a
 * starved machine); or searches spread so thin that the rate limiter never fired. Everything else
 * that differs from the oracle is a false verdict, and only a cell that differs is looked at so.
 */
import type { Verdict } from '../../src/report/checks/check.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { resolveThresholds } from '../../src/report/thresholds.js';
import { expected, ZOO_CHECKS, type Expectation, type ZooCheck } from './oracle.js';
import { describe, type Member } from './members.js';
import type { ZooRun } from './run-zoo.js';

export type Cell =
  /** `expected` is the expectation met: the verdict, or its alternative. */
  | { kind: 'right'; expected: Verdict; actual: Verdict }
  | { kind: 'undecided' }
  | { kind: 'machine'; why: string }
  | { kind: 'false FAIL' | 'false PASS' | 'wrong exercise'; expected: Verdict; wanted: string; actual: Verdict; where: string };

const TOLERANCE = resolveThresholds().retry_after_tolerance_ms;

/** The journal lines a check's verdict rests on, in start order. */
function evidenceOf(run: ZooRun, check: ZooCheck): JournalEntry[] {
  const ids = new Set([...run.report.checks.filter((c) => c.check === check).flatMap((c) => c.evidence), ...(run.evidence[check] ?? [])]);
  return run.journal.filter((e) => ids.has(e.id)).sort((a, b) => a.t - b.t);
}

/** A later evidence request the buyer had sent before it read an earlier one's reply: they crossed on the wire. */
function crossed(run: ZooRun, lines: JournalEntry[]): boolean {
  const clock = lines.map((e) => run.clock.get(String(e.rpc_id)));
  return clock.some((a, i) => a?.readAt !== undefined && clock.slice(i + 1).some((b) => b !== undefined && b.sentAt < a.readAt!));
}

/**
 * The most the machine added between the buyer and the proxy in a run: delivery of a request, or of
 * a reply (one clock: one process). The run's first request is left out: every member starts at
 * once, and a first request queued behind the others is no reaction to anything.
 */
function distortionMs(run: ZooRun): number {
  let most = 0;
  const first = Math.min(...[...run.clock.values()].map((c) => c.sentAt));
  for (const e of run.journal) {
    const seen = run.clock.get(String(e.rpc_id));
    if (seen === undefined || seen.sentAt === first) continue;
    most = Math.max(most, e.t - seen.sentAt, seen.readAt === undefined ? 0 : seen.readAt - (e.t + e.duration_ms));
  }
  return most;
}

/** Lines no rule caused that still failed: the proxy's own timeouts and lost replies on a starved machine. */
const ownFailures = (run: ZooRun) => run.journal.filter((e) => e.source === 'proxy' || (e.outcome === 'unknown' && !e.faults?.length));

/** The checks that judge how long the buyer waited. */
const TIMED: ReadonlySet<ZooCheck> = new Set(['retry-after', 'no-storm', 'backoff']);

/** What the machine, not the buyer, did to a run (and its tidy twin) that bears on `check`, proved from the journal or the buyer's clock; undefined when nothing. */
export function disturbance(run: ZooRun, check: ZooCheck, siblings: readonly ZooRun[] = []): string | undefined {
  const own = [run, ...siblings].flatMap(ownFailures);
  if (own.length > 0) return `the proxy itself failed ${own.length} requests (${own[0]!.error_code ?? own[0]!.unknown_cause}) that no rule asked for`;
  // Held requests and replies change only what is judged by time; reactions are guarded by `crossed`.
  if (!TIMED.has(check)) return undefined;
  if (run.scenario === 'rate-limit-storm' && !run.journal.some((l) => l.error_code === 'RATE_LIMITED'))
    return 'its searches were spread wider than the limiter window';
  const distortion = Math.max(...[run, ...siblings].map(distortionMs));
  if (distortion > TOLERANCE)
    return `the machine held a request or reply ${Math.round(distortion)} ms between buyer and proxy, past the ${TOLERANCE} ms tolerance`;
  return undefined;
}

/** When the machine, not the grader, decided a verdict that differs from the oracle's. */
function machine(run: ZooRun, siblings: readonly ZooRun[], check: ZooCheck, e: Expectation, actual: Verdict): string | undefined {
  if (actual === 'FAIL' && e.verdict !== 'FAIL' && crossed(run, evidenceOf(run, check)))
    return 'a request it had sent before reading the reply reached the proxy after it';
  return disturbance(run, check, siblings);
}

export function judge(m: Member, run: ZooRun, check: ZooCheck, siblings: readonly ZooRun[] = []): Cell {
  const e = expected(m, run.scenario)[check];
  const actual = run.verdicts[check] ?? 'NOT EXERCISED';
  if (e.undecided) return { kind: 'undecided' };
  if (actual === e.verdict || actual === e.or) return { kind: 'right', expected: actual, actual };
  const why = machine(run, siblings, check, e, actual);
  if (why !== undefined) return { kind: 'machine', why };
  const where =
    `${describe(m)} in ${run.scenario}: ${run.report.checks.find((c) => c.check === check)?.explanation ?? ''} ${run.explanations[check] ?? ''}`.trim();
  const wanted = e.or ? `${e.verdict} or ${e.or}` : e.verdict;
  const base = { expected: e.verdict, wanted, actual, where: `expected ${wanted}: ${where}` };
  if (actual === 'FAIL') return { kind: 'false FAIL', ...base };
  if (actual === 'PASS' && e.verdict === 'FAIL') return { kind: 'false PASS', ...base };
  return { kind: 'wrong exercise', ...base };
}

export interface Confusion {
  /** expected verdict → actual verdict → count, over the cells judged right or wrong. */
  table: Record<string, Record<string, number>>;
  falseFail: string[];
  falsePass: string[];
  wrongExercise: string[];
  undecided: number;
  machine: string[];
  judged: number;
}

const VERDICTS: Verdict[] = ['PASS', 'FAIL', 'NOT EXERCISED', 'NOT APPLICABLE'];

export function confusion(members: readonly Member[], runs: Map<string, ZooRun[]>): Record<ZooCheck, Confusion> {
  const out = {} as Record<ZooCheck, Confusion>;
  for (const check of ZOO_CHECKS) {
    const c: Confusion = { table: {}, falseFail: [], falsePass: [], wrongExercise: [], undecided: 0, machine: [], judged: 0 };
    for (const v of VERDICTS) c.table[v] = Object.fromEntries(VERDICTS.map((w) => [w, 0]));
    for (const m of members) {
      for (const run of runs.get(m.id) ?? []) {
        // The twin is judged against its tidy run too: a fault of the machine in either decides it.
        const siblings = run.scenario.endsWith('+untidy-envelopes') ? (runs.get(m.id) ?? []).filter((r) => run.scenario.startsWith(`${r.scenario}+`)) : [];
        const cell = judge(m, run, check, siblings);
        if (cell.kind === 'undecided') c.undecided++;
        else if (cell.kind === 'machine') c.machine.push(`${m.id} in ${run.scenario}: ${cell.why}`);
        else {
          c.judged++;
          const row = (c.table[cell.expected] ??= {});
          row[cell.actual] = (row[cell.actual] ?? 0) + 1;
          if (cell.kind === 'false FAIL') c.falseFail.push(cell.where);
          if (cell.kind === 'false PASS') c.falsePass.push(cell.where);
          if (cell.kind === 'wrong exercise') c.wrongExercise.push(cell.where);
        }
      }
    }
    out[check] = c;
  }
  return out;
}

/** The tables as the test prints them: one block per check, expected by row, graded by column. */
export function formatConfusion(tables: Record<ZooCheck, Confusion>): string {
  const lines: string[] = [];
  const short = (v: string) => (v === 'NOT EXERCISED' ? 'NE' : v === 'NOT APPLICABLE' ? 'NA' : v);
  for (const [check, c] of Object.entries(tables)) {
    lines.push(
      `${check}: ${c.judged} cells judged, ${c.falseFail.length} false FAIL, ${c.falsePass.length} false PASS, ${c.undecided} undecided by design, ${c.machine.length} decided by the machine`,
    );
    lines.push(`  expected \\ graded    PASS  FAIL    NE    NA`);
    for (const v of VERDICTS) lines.push(`  ${short(v).padEnd(20)}${VERDICTS.map((w) => String(c.table[v]?.[w] ?? 0).padStart(6)).join('')}`);
  }
  return lines.join('\n');
}
