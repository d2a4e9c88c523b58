/**
 * retry-after: after RATE_LIMITED with a retry hint, the next request for the same skill starts
 * no sooner than the hint. The gap is measured from the start of the rate-limited request, the
 * most lenient reading: a buyer that waits the hint after the reply arrives is always on time.
 */
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { gapMs, ms, nextRequest, retryHintMs, skillOf } from './read-line.js';

export const retryAfterCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-001',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › RATE_LIMITED', quote: 'should include details.retry_after_ms … so the buyer agent can back off appropriately' },
  },
  rule: "After RATE_LIMITED with retry_after_ms, the next request for the same skill waits at least that long, whatever the reply's retryable (that says whether the same request may go again; the hint says when the skill may).",
  grade({ requests, thresholds }) {
    const tolerance = thresholds.retry_after_tolerance_ms;
    const onTime: string[] = [];
    const early: { ids: string[]; gap: number; hint: number; skill: string }[] = [];
    /** The on-time return with the least time to spare, so a PASS shows its margin. */
    let closest: { gap: number; hint: number; skill: string } | undefined;
    let hints = 0;
    for (const [index, limited] of requests.entries()) {
      const hint = retryHintMs(limited);
      if (hint === undefined) continue;
      hints++;
      const next = nextRequest(requests, index, (e) => skillOf(e) === skillOf(limited), tolerance);
      if (next === undefined) {
        onTime.push(limited.id); // never came back: the hint was honoured
        continue;
      }
      const gap = gapMs(limited, next);
      if (gap + tolerance >= hint) {
        onTime.push(limited.id, next.id);
        if (closest === undefined || gap - hint < closest.gap - closest.hint) closest = { gap, hint, skill: skillOf(limited) };
      } else early.push({ ids: [limited.id, next.id], gap, hint, skill: skillOf(limited) });
    }

    if (hints === 0) return notExercised('no RATE_LIMITED reply with a retry hint reached this client');
    if (early.length === 0) {
      const margin = closest === undefined ? '' : `; closest: ${closest.skill} again after ${ms(closest.gap)} against a ${ms(closest.hint)} hint`;
      return pass(onTime, `waited out every retry hint (${plural(hints, 'RATE_LIMITED reply', 'RATE_LIMITED replies')}, tolerance ${ms(tolerance)}${margin})`);
    }
    const worst = early.reduce((a, b) => (b.hint - b.gap > a.hint - a.gap ? b : a));
    return fail(
      early.flatMap((e) => e.ids),
      `came back early after ${early.length} of ${plural(hints, 'RATE_LIMITED reply', 'RATE_LIMITED replies')}: ${worst.skill} again after ${ms(worst.gap)} ` +
        `against a ${ms(worst.hint)} hint (tolerance ${ms(tolerance)}); wait retry_after_ms before resending`,
    );
  },
};
