/**
 * Which rules keep state between requests: those are the ones a fleet must share.
 */
import type { Rule } from '../scenario/types.generated.js';

/** The rule counts requests (`after`, `every`, `times`) or keeps a rate-limit window. */
export function ruleKeepsState(rule: Rule): boolean {
  const w = rule.when;
  return rule.rate_limit !== undefined || (w !== undefined && (w.after !== undefined || w.every !== undefined || w.times !== undefined));
}

/** Mixes the replica id into the seed: each replica has its own reproducible stream. */
export function replicaSeed(seed: number, replicaId: string | undefined): number {
  if (replicaId === undefined) return seed;
  // FNV-1a over the replica id, folded into the seed.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < replicaId.length; i++) h = Math.imul(h ^ replicaId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
