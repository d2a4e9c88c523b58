/**
 * `aap-chaos check` output: a table a person reads in a CI log (rule, severity, verdict, and
 * the wire evidence of each failure), and JUnit XML with one test case per rule.
 */
import { xmlEscape } from '../journal/junit.js';
import type { CheckReport, RuleResult } from './run-check.js';

const EVIDENCE_SHOWN = 3;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}

function evidenceLine(rule: RuleResult): string {
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
      if (rule.evidence.length > EVIDENCE_SHOWN) lines.push(`    … (+${rule.evidence.length - EVIDENCE_SHOWN} more; --json has them all, with the wire record)`);
    }
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  const { pass, fail, not_checked, must_fail } = report.summary;
  lines.push('', `${report.ok ? 'PASS' : 'FAIL'}: ${pass} passed, ${fail} failed (${must_fail} MUST), ${not_checked} not checked`);
  return lines.join('\n');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');
}

/** MUST failures are <failure>; SHOULD failures pass with a warning in <system-err> (the exit code agrees); NOT CHECKED is <skipped>. */
export function checkToJUnit(report: CheckReport): string {
  const failures = report.summary.must_fail;
  const skipped = report.summary.not_checked;
  const counts = { tests: report.rules.length, failures, errors: 0, skipped };
  const cases = report.rules.map((rule) => {
    const open = `    <testcase${attrs({ classname: 'aap-chaos.check', name: `${rule.id} ${rule.title}` })}`;
    const evidence = rule.evidence.map((e) => `${e.probe} ${e.pointer || '/'}: expected ${e.expected}; seen ${e.seen}`).join('\n');
    if (rule.verdict === 'NOT CHECKED') return `${open}>\n      <skipped${attrs({ message: rule.note ?? 'not checked' })}/>\n    </testcase>`;
    if (rule.verdict === 'FAIL' && rule.severity === 'MUST') return `${open}>\n      <failure${attrs({ type: 'MUST', message: evidenceLine(rule) })}>${xmlEscape(evidence)}</failure>\n    </testcase>`;
    if (rule.verdict === 'FAIL') return `${open}>\n      <system-err>${xmlEscape(`SHOULD not met:\n${evidence}`)}</system-err>\n    </testcase>`;
    return `${open}>\n      <system-out>${xmlEscape(evidence)}</system-out>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'aap-chaos dealer conformance', ...counts })}>`,
    `  <testsuite${attrs({ name: `aap-chaos dealer conformance ${report.target}`, ...counts, timestamp: report.started_at })}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
