/**
 * `when`: whether a matching request fires the rule. Applied by the engine around every effect
 * (as Toxiproxy applies toxicity around every toxic), never inside one. Counters are per rule and key.
 */
import type { When } from '../scenario/types.generated.js';

export interface KeyCounters {
  /** Matching requests seen for this key. */
  seen: number;
  /** Times the rule fired for this key. */
  fired: number;
}

/**
 * `seen` must already count the current request. The probability is drawn last, and only when
 * everything else holds, so the same requests consume the same random numbers.
 */
export function fires(when: When | undefined, counters: KeyCounters, elapsedS: number, random: () => number): boolean {
  if (!when) return true;
  if (when.from_s !== undefined && elapsedS < when.from_s) return false;
  if (when.until_s !== undefined && elapsedS >= when.until_s) return false;
  const after = when.after ?? 0;
  if (counters.seen <= after) return false;
  if (when.every !== undefined && (counters.seen - after) % when.every !== 0) return false;
  if (when.times !== undefined && counters.fired >= when.times) return false;
  if (when.probability !== undefined && !(random() < when.probability)) return false;
  return true;
}
