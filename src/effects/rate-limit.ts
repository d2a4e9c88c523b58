/**
 * `rate_limit`: a sliding window per rule and key. Past the limit the buyer gets RATE_LIMITED
 * whose retry_after_ms is the true time until the oldest counted request leaves the window, so
 * a buyer that waits exactly that long gets through. Refused requests do not count.
 */
import { buildAapError } from '../protocol/envelopes.js';
import type { Rule } from '../scenario/types.generated.js';
import { envelopeReply, type TerminalEffect } from './effect.js';

/** Timer granularity allowed when a buyer waits exactly retry_after_ms. */
const CLOCK_SLACK_MS = 1;

export function createRateLimitEffect(rule: Rule): TerminalEffect {
  const { limit, window_ms: windowMs } = rule.rate_limit!;
  return {
    name: 'rate_limit',
    terminal: true,
    explain: () => `rate limit ${limit} per ${windowMs} ms`,
    decide: (ctx) => {
      const hits = ((ctx.keyState.hits as number[] | undefined) ??= []);
      // Buyers wait on millisecond timers that may fire a fraction of a millisecond early against
      // this sub-millisecond clock; a hit that has less than that left counts as expired.
      while (hits.length > 0 && hits[0]! <= ctx.now - windowMs + CLOCK_SLACK_MS) hits.shift();
      if (hits.length < limit) {
        hits.push(ctx.now);
        return undefined;
      }
      const retryAfterMs = Math.max(1, Math.ceil(hits[0]! + windowMs - ctx.now));
      return {
        action: envelopeReply(buildAapError(ctx.profile, 'RATE_LIMITED', ctx.request.id, { retryAfterMs })),
        explain: `RATE_LIMITED, retry after ${retryAfterMs} ms`,
      };
    },
  };
}
