/**
 * sold-vehicle: after VEHICLE_UNAVAILABLE or VEHICLE_NOT_FOUND, the buyer does not keep asking
 * for the same vehicle. Re-requests are counted until the dealer answers that vehicle
 * successfully again (it came back); more than `same_vehicle_max_repeats` is a loop.
 *
 * The dealer's per-instance `retryable` comes first: a refusal it marked `retryable: true` (a
 * vehicle on hold for a moment) invites the same request again after a backoff, so its
 * re-requests are not a loop here — the backoff check grades their waits and their number.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { reactsTo, retryableOf, sawError, sawSuccess } from './read-line.js';

const GONE_CODES = ['VEHICLE_UNAVAILABLE', 'VEHICLE_NOT_FOUND'] as const;

interface GoneVehicle {
  vehicle: string;
  refusal: JournalEntry;
  repeats: JournalEntry[];
}

export const soldVehicleCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-008',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › VEHICLE_UNAVAILABLE', quote: 'Buyer agents SHOULD recompute search results' },
  },
  skills: ['inventory.vehicle'],
  rule: "After VEHICLE_UNAVAILABLE / VEHICLE_NOT_FOUND, the same vehicle is not requested again in a loop; unless the reply says retryable: true (the dealer's per-instance value wins over the codes' default of false), when retrying it is graded by backoff.",
  grade({ requests, thresholds }) {
    const maxRepeats = thresholds.same_vehicle_max_repeats;
    const episodes: GoneVehicle[] = [];
    /** Refusals the dealer marked retryable: the re-requests they invite are backoff's to grade. */
    const invited: JournalEntry[] = [];
    const watching = new Map<string, GoneVehicle>();
    for (const entry of requests) {
      if (entry.vehicle === undefined) continue;
      const gone = watching.get(entry.vehicle);
      if (gone !== undefined) {
        if (!reactsTo(requests, gone.refusal, entry, thresholds.retry_after_tolerance_ms)) continue; // in flight before the refusal arrived
        gone.repeats.push(entry);
        if (sawSuccess(entry)) watching.delete(entry.vehicle);
      } else if (sawError(entry, GONE_CODES) && retryableOf(entry) === true) {
        invited.push(entry);
      } else if (sawError(entry, GONE_CODES)) {
        const episode = { vehicle: entry.vehicle, refusal: entry, repeats: [] };
        episodes.push(episode);
        watching.set(entry.vehicle, episode);
      }
    }

    if (episodes.length === 0 && invited.length === 0) return notExercised('no VEHICLE_UNAVAILABLE or VEHICLE_NOT_FOUND reply reached this client');
    const loops = episodes.filter((e) => e.repeats.length > maxRepeats);
    if (loops.length === 0) {
      const retryable = invited.length > 0 ? `; ${plural(invited.length, 'refusal')} said retryable: true, so retrying those is backoff's to grade` : '';
      return pass(
        [...episodes.map((e) => e.refusal.id), ...invited.map((e) => e.id)],
        `let go of ${plural(episodes.length, 'gone vehicle')} (at most ${maxRepeats} re-requests allowed)${retryable}`,
      );
    }
    const worst = loops.reduce((a, b) => (b.repeats.length > a.repeats.length ? b : a));
    return fail(
      loops.flatMap((e) => [e.refusal.id, ...e.repeats.map((r) => r.id)]),
      `requested vehicle ${worst.vehicle} ${worst.repeats.length} more times after ${worst.refusal.error_code} (allowed ${maxRepeats}); ` +
        `drop a vehicle once the dealer says it is gone`,
    );
  },
};
