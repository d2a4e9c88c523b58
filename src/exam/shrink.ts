/**
 * The pieces of fault shrinking (shrink-run.ts runs them for `--shrink`): delta debugging over
 * the faults that fired in a failing run, and each firing turned into a rule pinned to the request
 * it hit, by skill and position (`match: {skill}`, `when: {after: nth - 1, times: 1}`), so a
 * subset of firings is itself a scenario.
 */
import { stringify } from 'yaml';
import type { JournalEntry } from '../journal/entry.js';
import type { Rule, Scenario } from '../scenario/types.generated.js';

/** One fault that fired: the rule, and the request it hit as the nth request of its skill. */
export interface Firing {
  rule: Rule;
  skill: string;
  nth: number;
  entry: string;
}

/** What a trial of a subset said: the check FAILed again, did not, or the budget ran out. */
export type Trial = (subset: Firing[]) => Promise<boolean>;

export interface ShrinkResult {
  minimal: Firing[];
  /** Buyer runs spent. */
  runs: number;
  /** False when the budget ran out first: `minimal` still fails but may not be 1-minimal. */
  oneMinimal: boolean;
}

/** The firings of a run's journal, in arrival order, each with its position among requests of its skill. */
export function firingsOf(journal: readonly JournalEntry[], rules: readonly Rule[]): Firing[] {
  const byArrival = [...journal].sort((a, b) => a.t - b.t);
  const seen = new Map<string, number>();
  const firings: Firing[] = [];
  for (const e of byArrival) {
    if (e.skill === undefined) continue;
    const nth = (seen.get(e.skill) ?? 0) + 1;
    seen.set(e.skill, nth);
    for (const f of e.faults ?? []) {
      const rule = rules.find((r) => r.id === f.rule);
      if (rule !== undefined && !firings.some((x) => x.entry === e.id && x.rule.id === rule.id)) firings.push({ rule, skill: e.skill, nth, entry: e.id });
    }
  }
  return firings;
}

/** A firing as a rule of its own that fires on that one request only. */
export function pinnedRule(f: Firing): Rule {
  const { id, match: _match, when: _when, key: _key, enabled: _enabled, description: _description, ...effect } = f.rule;
  return { id: `${id}-${f.skill}-${f.nth}`, match: { skill: f.skill }, when: { after: f.nth - 1, times: 1 }, ...effect };
}

export function pinnedScenario(base: Scenario, name: string, seed: number, firings: readonly Firing[]): Scenario {
  const { rules: _rules, ...rest } = base;
  return { ...rest, scenario: name, seed, rules: firings.map(pinnedRule) };
}

/** The reproducer file: a comment naming the check and requirement, then the pinned scenario. */
export function reproYaml(scenario: Scenario, check: string, requirement: string | undefined, from: string): string {
  const head = `# Minimal reproducer: ${check}${requirement ? ` (${requirement})` : ''} FAILs with only these faults.\n# Shrunk from scenario ${from}.\n`;
  return head + stringify(scenario);
}

/**
 * Delta debugging (ddmin): the smallest subset found that still fails, removing chunks of the
 * set and then single firings until no single one can go (1-minimal), within `budget` trials.
 */
export async function ddmin(all: readonly Firing[], fails: Trial, budget: number): Promise<ShrinkResult> {
  let current = [...all];
  let n = 2;
  let runs = 0;
  while (current.length >= 2) {
    const size = Math.ceil(current.length / n);
    const chunks = Array.from({ length: Math.ceil(current.length / size) }, (_, i) => current.slice(i * size, (i + 1) * size));
    let reduced = false;
    // Subsets first, then complements (Zeller's order).
    for (const candidate of [...chunks, ...chunks.map((c) => current.filter((f) => !c.includes(f)))]) {
      if (candidate.length === 0 || candidate.length === current.length) continue;
      if (runs >= budget) return { minimal: current, runs, oneMinimal: false };
      runs++;
      if (await fails(candidate)) {
        current = candidate;
        n = chunks.includes(candidate) ? 2 : Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  return { minimal: current, runs, oneMinimal: true };
}
