/**
 * The report's "dealer conformance" section: what `--check-dealer` found in the journal, one
 * row per broken rule with a count, the first journal id and one example. It grades the dealer,
 * not the buyer, so it never changes the report's verdict.
 */
import { RULES_BY_ID, type Severity } from '../protocol/conformance/rules.js';
import type { JournalEntry } from '../journal/entry.js';

export interface DealerRuleSummary {
  rule: string;
  severity: Severity;
  title: string;
  /** Violations across all replies. */
  count: number;
  /** Journal ids of the replies that broke it (the first ten). */
  evidence: string[];
  example: { pointer: string; expected: string; seen: string };
}

export interface DealerConformanceSection {
  /** Dealer replies the check looked at. */
  checked: number;
  /** Of those, replies with at least one violation. */
  with_violations: number;
  must_violations: number;
  should_violations: number;
  rules: DealerRuleSummary[];
}

const EVIDENCE_KEPT = 10;

/** The section, or undefined when no journal line was checked (the proxy ran without --check-dealer). */
export function dealerConformanceSection(entries: readonly JournalEntry[]): DealerConformanceSection | undefined {
  const checked = entries.filter((e) => e.conformance !== undefined);
  if (checked.length === 0) return undefined;
  const byRule = new Map<string, DealerRuleSummary>();
  let must = 0;
  let should = 0;
  for (const entry of checked) {
    for (const v of entry.conformance!) {
      if (v.severity === 'MUST') must++;
      else should++;
      let row = byRule.get(v.rule);
      if (!row)
        byRule.set(
          v.rule,
          (row = {
            rule: v.rule,
            severity: v.severity,
            title: RULES_BY_ID.get(v.rule)?.title ?? v.rule,
            count: 0,
            evidence: [],
            example: { pointer: v.pointer, expected: v.expected, seen: v.seen },
          }),
        );
      row.count++;
      if (row.evidence.length < EVIDENCE_KEPT && !row.evidence.includes(entry.id)) row.evidence.push(entry.id);
    }
  }
  const rules = [...byRule.values()].sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  return {
    checked: checked.length,
    with_violations: checked.filter((e) => e.conformance!.length > 0).length,
    must_violations: must,
    should_violations: should,
    rules,
  };
}

/** The section as report lines. */
export function formatDealerConformance(section: DealerConformanceSection): string[] {
  const lines = [
    '',
    `Dealer conformance (--check-dealer): ${section.checked} dealer replies checked, ${section.with_violations} broke a rule (${section.must_violations} MUST, ${section.should_violations} SHOULD violations)`,
  ];
  for (const r of section.rules) {
    lines.push(
      `  ${r.rule}  ${r.severity.padEnd(6)}  ${String(r.count).padStart(4)}x  ${r.title}: ${r.example.pointer || '/'} expected ${r.example.expected}, seen ${r.example.seen} (first: ${r.evidence[0]})`,
    );
  }
  if (section.rules.length === 0) lines.push('  every checked reply kept every rule it met');
  return lines;
}
