/**
 * non-retryable: after an error the dealer marked `retryable: false`, the buyer never sends that
 * request again unchanged. The dealer's per-instance value decides (an INTERNAL_ERROR it marks
 * `retryable: false` is final, a SCHEMA_VALIDATION_FAILED it marks `retryable: true` is not); the
 * code's table default only when the reply carried none (read-line.ts, `retryableOf`). "Unchanged" is the same skill and data hash, and also the same
 * idempotency key and A2A headers: a buyer that fixes its headers after -32008, or picks a fresh
 * idempotency key after IDEMPOTENCY_CONFLICT, changed the request and is doing the right thing.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { reactsTo, requestIdentity, sawFinalError, skillOf } from './read-line.js';

function unchangedKey(entry: JournalEntry): string | undefined {
  const identity = requestIdentity(entry);
  if (identity === undefined) return undefined;
  const extensions = [...(entry.extensions ?? [])].sort();
  return JSON.stringify([identity, entry.idempotency_key ?? null, entry.a2a_version ?? null, extensions]);
}

export const nonRetryableCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-002',
    level: 'MUST',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Error code reference', quote: 'Buyer agents MUST honor the value [of retryable] the dealer returns' },
  },
  rule: "After an error the dealer marked retryable: false, the client does not send the same request again unchanged (the reply's own retryable decides, whatever the code; the code's table default only when the reply carries none).",
  grade({ requests, thresholds }) {
    /** The first refusal of each unchanged request; later copies are all graded against it. */
    const refusals = new Map<string, JournalEntry>();
    const resends: { refusal: JournalEntry; resend: JournalEntry }[] = [];
    for (const entry of requests) {
      const key = unchangedKey(entry);
      if (key === undefined) continue;
      const refusal = refusals.get(key);
      if (refusal !== undefined) {
        if (reactsTo(requests, refusal, entry, thresholds.retry_after_tolerance_ms)) resends.push({ refusal, resend: entry });
      } else if (sawFinalError(entry)) refusals.set(key, entry);
    }

    if (refusals.size === 0) return notExercised('no error with retryable: false reached this client');
    if (resends.length === 0) {
      return pass(
        [...refusals.values()].map((e) => e.id),
        `never resent a refused request unchanged (${plural(refusals.size, 'refusal')})`,
      );
    }
    const first = resends[0];
    return fail(
      resends.flatMap(({ refusal, resend }) => [refusal.id, resend.id]),
      `resent ${plural(resends.length, 'request')} unchanged after retryable: false (first: ${skillOf(first.refusal)} ` +
        `after ${first.refusal.error_code}); change the request or give up — it will fail the same way`,
    );
  },
};
