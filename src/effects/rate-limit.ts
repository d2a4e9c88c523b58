/**
 * `rate_limit`: a sliding window per rule and key. Past the limit the buyer gets RATE_LIMITED
 * whose retry_after_ms is the true time until the oldest counted request leaves the window, so
 * a buyer that waits exactly that long gets through. Refused requests do not count.
 */
import { buildAapError } from '../protocol/envelopes.js';
import type { Rule } from '../scenario/types.generated.js';
import { envelopeReply, type TerminalEffect } from './effect.js';
import { slidingWindow } from './sliding-window.js';

export function createRateLimitEffect(rule: Rule): TerminalEffect {
  const { limit, window_ms: windowMs } = rule.rate_limit!;
  return {
    name: 'rate_limit',
    terminal: true,
    explain: () => `rate limit ${limit} per ${windowMs} ms`,
    decide: (ctx) => {
      const retryAfterMs = slidingWindow(ctx, limit, windowMs);
      if (retryAfterMs === undefined) return undefined;
      return {
        action: envelopeReply(buildAapError(ctx.profile, 'RATE_LIMITED', ctx.request.id, { retryAfterMs })),
        explain: `RATE_LIMITED, retry after ${retryAfterMs} ms`,
      };
    },
  };
}
