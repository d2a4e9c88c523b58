/**
 * Which rules keep state between requests: those are the ones a fleet must share, and the ones
 * that make `--workers` > 1 meaningless with the memory store.
 */
import type { Rule, Scenario } from '../scenario/types.generated.js';

/** The rule counts requests (`after`, `every`, `times`) or keeps a rate-limit window. */
export function ruleKeepsState(rule: Rule): boolean {
  const w = rule.when;
  return rule.rate_limit !== undefined || (w !== undefined && (w.after !== undefined || w.every !== undefined || w.times !== undefined));
}

/** Why the scenario keeps state between requests, or undefined when it keeps none. */
export function statefulParts(scenario: Scenario): string | undefined {
  const parts: string[] = [];
  if (scenario.max_active_faults !== undefined) parts.push('max_active_faults');
  const ids = (scenario.rules ?? []).filter(ruleKeepsState).map((r) => r.id);
  if (ids.length > 0) parts.push(`rule${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`);
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/** Mixes the replica id into the seed: each replica has its own reproducible stream. */
export function replicaSeed(seed: number, replicaId: string | undefined): number {
  if (replicaId === undefined) return seed;
  // FNV-1a over the replica id, folded into the seed.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < replicaId.length; i++) h = Math.imul(h ^ replicaId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
