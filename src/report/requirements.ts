/**
 * The seed's buyer requirements as the report grades them: one row per check, with its stable id,
 * level, profiles and the seed section it rests on. `aap-chaos exam --list-requirements` prints
 * them; docs/report.md has the same table.
 */
import type { Profile } from '../protocol/codes.js';
import { CHECK_NAMES, CHECKS, type CheckName } from './checks/index.js';
import type { Requirement } from './checks/check.js';

export interface RequirementRow extends Requirement {
  check: CheckName;
  /** What the check grades, in one sentence. */
  rule: string;
}

/** Every requirement, in the report's order; only those of `profile` when given. */
export function listRequirements(profile?: Profile): RequirementRow[] {
  return CHECK_NAMES.map((check) => ({ ...CHECKS[check].requirement, check, rule: CHECKS[check].rule })).filter(
    (r) => profile === undefined || r.profiles.includes(profile),
  );
}

/** The table a person reads: id, check, level, profiles, then the seed section and its words. */
export function formatRequirements(rows: readonly RequirementRow[]): string {
  const cells = rows.map((r) => [r.id, r.check, r.level, r.profiles.join(', ')]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(['ID', 'CHECK', 'LEVEL', 'PROFILES'][i]!.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  const out = [`${line(['ID', 'CHECK', 'LEVEL', 'PROFILES'])}  SEED`];
  rows.forEach((r, i) => out.push(`${line(cells[i]!)}  ${r.seed.section}: "${r.seed.quote}"`, `${' '.repeat(widths[0]! + 2)}${r.rule}`));
  return out.join('\n');
}
