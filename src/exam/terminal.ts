/**
 * The exam's scorecard as a person reads it in a terminal or a CI log: scenario × check matrix
 * with the buyer's exit and run time per scenario, then each check's verdict over the battery
 * with its requirement id, then what failed with its evidence and the tail of the buyer's output,
 * then the overall verdict (and, when INCOMPLETE, the checks that never passed).
 */
import { describeExit, tailLines } from './buyer-process.js';
import { fraction, passK } from './pass-k.js';
import { requirementIdOf, type CellVerdict, type ExamRun, type ScenarioCard, type Scorecard } from './scorecard.js';

/** Lines of buyer output shown per failed run. */
const TAIL_LINES = 20;
const EVIDENCE_SHOWN = 6;
/** Longer output lines are cut here in the terminal; JSON and HTML keep them whole. */
const LINE_CHARS = 200;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function exitsOf(card: ScenarioCard): string {
  return [...new Set(card.runs.map((r) => describeExit(r.buyer)))].join(' / ');
}

function failureLines(run: ExamRun, card: Scorecard): string[] {
  const lines = [`FAIL ${run.scenario} (seed ${run.seed}), buyer ${describeExit(run.buyer)} after ${seconds(run.buyer.durationMs)}:`];
  for (const [check, verdict] of Object.entries(run.verdicts)) {
    if (verdict !== 'FAIL') continue;
    const result = run.report.checks.find((c) => c.check === check && c.verdict === 'FAIL');
    const why = run.explanations[check as keyof ExamRun['explanations']] ?? result?.explanation ?? `the buyer ended with ${describeExit(run.buyer)}`;
    const ids = run.evidence[check as keyof ExamRun['evidence']] ?? [];
    const shown = ids.slice(0, EVIDENCE_SHOWN).join(' ') + (ids.length > EVIDENCE_SHOWN ? ` … (+${ids.length - EVIDENCE_SHOWN})` : '');
    const expected = card.baseline?.expected.some((e) => e.scenario === run.scenario && e.check === check) ? ' (EXPECTED FAIL)' : '';
    lines.push(`  ${check}${expected}: ${why}${ids.length ? `\n    evidence (journal ids): ${shown}` : ''}`);
  }
  for (const [name, text] of [
    ['stderr', run.buyer.stderr],
    ['stdout', run.buyer.stdout],
  ] as const) {
    if (text.trim() === '') continue;
    lines.push(
      `  buyer ${name}, last ${TAIL_LINES} lines:`,
      ...tailLines(text, TAIL_LINES)
        .split('\n')
        .map((l) => `    | ${l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}…` : l}`),
    );
  }
  return lines;
}

/** A matrix cell: what happened to the check in that scenario ("-" not exercised there, "n/a" not applicable). */
const CELL: Record<CellVerdict, string> = { PASS: 'PASS', FAIL: 'FAIL', FLAKY: 'FLAKY', 'NOT EXERCISED': '-', 'NOT APPLICABLE': 'n/a' };

/** Per check: its id, its verdict over the battery, and where it passed or failed. */
function batteryLines(card: Scorecard): string[] {
  const rows = card.checks.map((c) => {
    const where = card.scenarios.filter((s) => s.verdicts[c] === card.battery[c]).map((s) => s.scenario);
    const required = card.required.includes(c) ? '' : ' (not required for the profiles run)';
    return [
      c,
      requirementIdOf(c) ?? '-',
      `${card.battery[c]}${required}`,
      card.battery[c] === 'PASS' || card.battery[c] === 'FAIL' || card.battery[c] === 'FLAKY' ? where.join(', ') : '',
    ];
  });
  return table([['CHECK', 'ID', 'BATTERY', 'WHERE'], ...rows]);
}

/** Expected FAILs and stale entries of a --baseline. */
function baselineLines(card: Scorecard): string[] {
  const b = card.baseline;
  if (!b) return [];
  const lines = b.expected.map((e) => `EXPECTED FAIL ${e.scenario} ${e.check} (${e.requirement}): ${e.reason} [${b.file}:${e.line}]`);
  for (const e of b.stale)
    lines.push(
      `STALE ${b.file}:${e.line}: ${e.requirement}${e.scenario ? ` in ${e.scenario}` : ''} now passes in every run it covers; delete this entry from the baseline`,
    );
  return lines.length ? ['', ...lines] : [];
}

export function formatScorecard(card: Scorecard): string {
  const header = ['SCENARIO', ...card.checks, 'BUYER', 'TIME'];
  const rows = card.scenarios.map((s) => [
    s.runs.length > 1 ? `${s.scenario} ×${s.runs.length}` : s.scenario,
    ...card.checks.map((c) => (card.baseline?.expected.some((e) => e.scenario === s.scenario && e.check === c) ? 'XFAIL' : CELL[s.verdicts[c]])),
    exitsOf(s),
    seconds(s.runs.reduce((sum, r) => sum + r.buyer.durationMs, 0)),
  ]);
  const lines = table([header, ...rows]);
  lines.push(
    `("-": not exercised in that scenario; "n/a": the buyer never called the skill the check is about${card.baseline ? '; XFAIL: EXPECTED FAIL, covered by the baseline' : ''})`,
    '',
    ...batteryLines(card),
  );

  const flaky = card.scenarios.filter((s) => s.flaky);
  if (flaky.length > 0) {
    lines.push('');
    for (const s of flaky) {
      const passed = s.runs.filter((r) => r.ok).map((r) => r.seed);
      const failed = s.runs.filter((r) => !r.ok).map((r) => r.seed);
      lines.push(`FLAKY ${s.scenario}: passes under seed ${passed.join(', ')}, fails under seed ${failed.join(', ')}`);
    }
  }
  const k = passK(card);
  if (k.overall.k > 1) {
    const row = (name: string, p: typeof k.overall) => [name, String(p.pass_k), fraction(p), p.failed_seeds.join(', ') || '-'];
    lines.push(
      '',
      ...table([[`CHECK (k=${k.overall.k})`, 'PASS^K', 'PASS@1', 'FAILED SEEDS'], ...card.checks.map((c) => row(c, k.checks[c])), row('overall', k.overall)]),
    );
  }
  for (const s of card.scenarios) {
    for (const run of s.runs.filter((r) => !r.ok)) lines.push('', ...failureLines(run, card));
  }
  lines.push(...baselineLines(card));
  const { pass, fail, flaky: flakyCells, not_exercised, not_applicable } = card.summary;
  const notApplicable = not_applicable > 0 ? `, ${not_applicable} not applicable` : '';
  const requiredPassed = card.required.filter((c) => card.battery[c] === 'PASS').length;
  lines.push(
    '',
    `${card.verdict}: ${pass} passed, ${fail} failed, ${flakyCells} flaky, ${not_exercised} not exercised${notApplicable} (${card.scenarios.length} scenarios); ${requiredPassed} of ${card.required.length} required checks passed over the battery`,
  );
  if (card.verdict === 'INCOMPLETE') {
    const missing = card.incomplete.map((i) => `${i.check}${i.id ? ` (${i.id})` : ''} ${i.verdict}`);
    lines.push(`Never passed: ${missing.join(', ')}. Add scenarios that exercise them (or use the skills they are about); --allow-incomplete exits 0.`);
  }
  return lines.join('\n');
}
