/**
 * Rate-limit windows: the memory store's sliding window, or the verdict a shared store already
 * reached for this request. Returns the true time to the next slot, or undefined when the
 * request is allowed (and counted).
 */
import type { EffectContext } from './effect.js';

/** Timer granularity allowed when a buyer waits exactly retry_after_ms. */
const CLOCK_SLACK_MS = 1;

/** Where a shared store's verdict is handed to the effect (instead of a local window). */
export const SHARED_WINDOW = 'sharedWindow';

export function slidingWindow(ctx: EffectContext, limit: number, windowMs: number): number | undefined {
  const shared = ctx.keyState[SHARED_WINDOW] as { retryAfterMs?: number } | undefined;
  if (shared) return shared.retryAfterMs;
  const hits = ((ctx.keyState.hits as number[] | undefined) ??= []);
  // Buyers wait on millisecond timers that may fire a fraction of a millisecond early against
  // this sub-millisecond clock; a hit that has less than that left counts as expired.
  while (hits.length > 0 && hits[0]! <= ctx.now - windowMs + CLOCK_SLACK_MS) hits.shift();
  if (hits.length < limit) {
    hits.push(ctx.now);
    return undefined;
  }
  return Math.max(1, Math.ceil(hits[0]! + windowMs - ctx.now));
}
