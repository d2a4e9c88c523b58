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
    // Each skill's requests in start order, with their starts: a window's requests are found by
    // binary search, so a report over a full journal ring is not quadratic in the client's requests.
    const groups = bySkill(requests);
    for (const limited of requests) {
      const hint = retryHintMs(limited);
      if (hint === undefined) continue;
      limitedIds.push(limited.id);
      const group = groups.get(skillOf(limited))!;
      const extras = extrasIn(requests, group, group.positions.get(limited)!, limited.t + hint - tolerance, tolerance);
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

/** One skill's requests in start order, their starts, and where each one is among them. */
interface SkillRequests {
  same: JournalEntry[];
  starts: number[];
  positions: Map<JournalEntry, number>;
}

function bySkill(requests: readonly JournalEntry[]): Map<string, SkillRequests> {
  const groups = new Map<string, SkillRequests>();
  for (const r of requests) {
    const skill = skillOf(r);
    let group = groups.get(skill);
    if (group === undefined) groups.set(skill, (group = { same: [], starts: [], positions: new Map() }));
    group.positions.set(r, group.same.length);
    group.same.push(r);
    group.starts.push(r.t);
  }
  return groups;
}

/** The first position after `from` whose start is at least `t` (`starts` ascend). */
function firstAtOrAfter(starts: readonly number[], t: number, from: number): number {
  let lo = from;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The requests of the limited one's skill that start inside its window and react to its reply:
 * every one from `tolerance` past the reply's end counts; the few closer to it count only when
 * they did not cross the reply on the wire (reactsTo).
 */
function extrasIn(requests: readonly JournalEntry[], { same, starts }: SkillRequests, at: number, windowEnd: number, tolerance: number): JournalEntry[] {
  const limited = same[at]!;
  const replyEnd = limited.t + limited.duration_ms;
  const end = firstAtOrAfter(starts, windowEnd, at + 1);
  const sure = Math.min(end, firstAtOrAfter(starts, replyEnd + tolerance, at + 1));
  const extras: JournalEntry[] = [];
  for (let i = firstAtOrAfter(starts, replyEnd - 1, at + 1); i < sure; i++) if (reactsTo(requests, limited, same[i]!, tolerance)) extras.push(same[i]!);
  for (let i = sure; i < end; i++) extras.push(same[i]!);
  return extras;
}
