/**
 * The report as a person reads it in a terminal or a CI log: a fixed-width table of verdicts,
 * then the evidence ids to look up in the journal, then a one-line summary.
 */
import { plural } from './checks/check.js';
import type { Report } from './report.js';
import { formatDealerConformance } from './dealer-conformance.js';

/** Evidence ids shown per row; the JSON and JUnit outputs always carry all of them. */
const EVIDENCE_SHOWN = 10;

const HEADER = ['CHECK', 'ID', 'CLIENT', 'VERDICT', 'EXPLANATION'] as const;

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  // The last column is free text and is not padded, so lines carry no trailing spaces.
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  '));
}

function evidenceLine(ids: string[]): string {
  const shown = ids.slice(0, EVIDENCE_SHOWN).join(' ');
  return ids.length > EVIDENCE_SHOWN ? `${shown} … (+${ids.length - EVIDENCE_SHOWN} more)` : shown;
}

function describeClientKey(key: string): string {
  if (key === 'ip') return 'address (ip)';
  if (key.startsWith('header:')) return `${key} (values shown as key: + a keyed hash)`;
  if (key === 'mixed') return 'different keys on different lines (mixed)';
  return 'what the journal lines recorded (no client_key field)';
}

export function formatReport(report: Report): string {
  const dealer = report.dealer_conformance ? formatDealerConformance(report.dealer_conformance) : [];
  if (report.checks.length === 0) return ['aap-chaos report: the journal holds no buyer requests; nothing to grade.', ...dealer].join('\n');
  const lines = table([[...HEADER], ...report.checks.map((c) => [c.check, c.id, c.client, c.verdict, c.explanation])]);

  const withEvidence = report.checks.filter((c) => c.evidence.length > 0);
  if (withEvidence.length > 0) {
    lines.push('', 'Evidence (journal ids):');
    lines.push(...table(withEvidence.map((c) => [`  ${c.check}`, c.client, evidenceLine(c.evidence)])));
  }

  lines.push('', `Clients keyed by ${describeClientKey(report.client_key)}.`);
  const { pass, fail, not_exercised, not_applicable } = report.summary;
  const notApplicable = not_applicable > 0 ? `, ${not_applicable} not applicable` : '';
  lines.push(
    `${report.ok ? 'PASS' : 'FAIL'}: ${pass} passed, ${fail} failed, ${not_exercised} not exercised${notApplicable} (${plural(report.clients.length, 'client')})`,
  );
  return [...lines, ...dealer].join('\n');
}
