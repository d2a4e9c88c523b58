/**
 * `aap-chaos check` output: a table a person reads in a CI log (rule, severity, verdict, and
 * the wire evidence of each failure), and JUnit XML with one test case per rule.
 */
import { junitXml, type JUnitCase } from '../report/junit.js';
import type { CheckReport, RuleResult } from './run-check.js';
import { describeCardSignatures } from './card-signatures.js';

const EVIDENCE_SHOWN = 3;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}

/** One line of what a rule's verdict rests on: the first violation of a FAIL. */
export function evidenceLine(rule: RuleResult): string {
  if (rule.verdict === 'NOT CHECKED') return rule.note ?? '';
  if (rule.verdict === 'PASS') return `held in: ${[...new Set(rule.evidence.map((e) => e.probe))].join(', ')}`;
  const first = rule.evidence[0]!;
  return `${first.probe} ${first.pointer || '/'}: expected ${first.expected}, seen ${first.seen}`;
}

export function formatCheck(report: CheckReport): string {
  const lines = [
    `aap-chaos check ${report.target} (JSON-RPC at ${report.rpc_url}; profile ${report.profile} from ${report.profile_origin}; ${report.requests} requests in ${(report.duration_ms / 1000).toFixed(1)} s)`,
    '',
    ...table([['RULE', 'SEVERITY', 'VERDICT', 'EVIDENCE'], ...report.rules.map((r) => [r.id, r.severity, r.verdict, evidenceLine(r)])]),
  ];
  const failed = report.rules.filter((r) => r.verdict === 'FAIL');
  if (failed.length > 0) {
    lines.push('', 'Failures (probe, JSON Pointer, expected, seen):');
    for (const rule of failed) {
      lines.push(`  ${rule.id} ${rule.title}`);
      for (const e of rule.evidence.slice(0, EVIDENCE_SHOWN)) lines.push(`    ${e.probe} ${e.pointer || '/'}: expected ${e.expected}; seen ${e.seen}`);
      if (rule.evidence.length > EVIDENCE_SHOWN)
        lines.push(`    … (+${rule.evidence.length - EVIDENCE_SHOWN} more; --json has them all, with the wire record)`);
    }
  }
  if (report.card_signatures) lines.push('', `card signatures: ${describeCardSignatures(report.card_signatures)}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  const { pass, fail, not_checked, must_fail } = report.summary;
  lines.push('', `${report.ok ? 'PASS' : 'FAIL'}: ${pass} passed, ${fail} failed (${must_fail} MUST), ${not_checked} not checked`);
  return lines.join('\n');
}

/** MUST failures are <failure>; SHOULD failures pass with a warning in <system-err> (the exit code agrees); NOT CHECKED is <skipped>. */
export function checkToJUnit(report: CheckReport): string {
  const cases = report.rules.map((rule): JUnitCase => {
    const base = { classname: 'aap-chaos.check', name: `${rule.id} ${rule.title}` };
    const evidence = rule.evidence.map((e) => `${e.probe} ${e.pointer || '/'}: expected ${e.expected}; seen ${e.seen}`).join('\n');
    if (rule.verdict === 'NOT CHECKED') return { ...base, outcome: { kind: 'skipped', message: rule.note ?? 'not checked' } };
    if (rule.verdict === 'FAIL' && rule.severity === 'MUST')
      return { ...base, outcome: { kind: 'failure', type: 'MUST', message: evidenceLine(rule), body: evidence } };
    if (rule.verdict === 'FAIL') return { ...base, outcome: { kind: 'pass', err: `SHOULD not met:\n${evidence}` } };
    return { ...base, outcome: { kind: 'pass', out: evidence } };
  });
  return junitXml('aap-chaos dealer conformance', [{ name: `aap-chaos dealer conformance ${report.target}`, timestamp: report.started_at, cases }]);
}
