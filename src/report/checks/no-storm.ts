/**
 * no-storm: a RATE_LIMITED reply with a hint tells the buyer its rate — one request per hint
 * window, and the rate-limited request already used this window. Every further request for the
 * same skill that starts inside the window (less the timing tolerance) is an extra; more extras
 * than `storm_tolerance` in any one window is a storm. Where `retry-after` grades only the next
 * request's timing, this grades how many requests piled into the window.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { ms, reactsTo, retryHintMs, skillOf } from './read-line.js';

export const noStormCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-007',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › RATE_LIMITED', quote: 'so the buyer agent can back off appropriately' },
  },
  rule: "After RATE_LIMITED, the client sends no more than one request per retry_after_ms window for that skill, whatever the reply's retryable (the hint is the rate the dealer allows).",
  grade({ requests, thresholds }) {
    const { storm_tolerance: allowedExtras, retry_after_tolerance_ms: tolerance } = thresholds;
    const limitedIds: string[] = [];
    const stormIds: string[] = [];
    let worst: { extras: number; hint: number; skill: string } | undefined;
    for (const [index, limited] of requests.entries()) {
      const hint = retryHintMs(limited);
      if (hint === undefined) continue;
      limitedIds.push(limited.id);
      const windowEnd = limited.t + hint - tolerance;
      const extras: JournalEntry[] = [];
      // requests are in start order, so the window's requests are the ones right after this one
      for (let i = index + 1; i < requests.length && requests[i].t < windowEnd; i++) {
        // Requests already in flight when the reply went out could not have heeded it.
        if (skillOf(requests[i]) === skillOf(limited) && reactsTo(requests, limited, requests[i], tolerance)) extras.push(requests[i]);
      }
      if (extras.length <= allowedExtras) continue;
      stormIds.push(limited.id, ...extras.map((e) => e.id));
      if (worst === undefined || extras.length > worst.extras) worst = { extras: extras.length, hint, skill: skillOf(limited) };
    }

    const windows = limitedIds.length;
    if (windows === 0) return notExercised('no RATE_LIMITED reply with a retry hint reached this client');
    if (worst === undefined) {
      return pass(limitedIds, `kept to the told rate in ${plural(windows, 'retry window')} (at most ${allowedExtras} extra allowed per window)`);
    }
    return fail(
      stormIds,
      `sent ${plural(worst.extras, 'extra request')} for ${worst.skill} inside one ${ms(worst.hint)} retry window ` +
        `(allowed ${allowedExtras}); queue requests until the window ends instead of firing them`,
    );
  },
};
