/**
 * fresh-key: IDEMPOTENCY_CONFLICT says the idempotency_key already belongs to another payload.
 * The key is spent for anything but that original payload: the buyer must not send it again with
 * the conflicting payload, nor with any payload other than the one it was first sent with before
 * the conflict; a genuinely new lead carries a new key. A conflict the dealer marked `retryable:
 * true` (its per-instance value over the code's default of false) invites that same request —
 * key and payload — again after a backoff; any other new payload under the key still fails.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { reactsTo, retryableOf, sawError } from './read-line.js';

const LEAD_SKILL = 'lead.submit';

export const freshKeyCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-010',
    level: 'MUST',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › IDEMPOTENCY_CONFLICT', quote: 'the buyer agent must use a fresh idempotency_key for a genuinely new request' },
  },
  skills: [LEAD_SKILL],
  rule: "After IDEMPOTENCY_CONFLICT, the client does not send that idempotency_key again with the changed payload (or any other new one); a new lead gets a new key. When the reply says retryable: true (the dealer's per-instance value wins over the code's default of false), the same request again is the retry it invited.",
  grade({ requests, thresholds }) {
    const leads = requests.filter((e) => e.skill === LEAD_SKILL && e.idempotency_key !== undefined);
    const conflicts = leads.filter((e) => sawError(e, ['IDEMPOTENCY_CONFLICT']));
    if (conflicts.length === 0) return notExercised('no IDEMPOTENCY_CONFLICT reached this client');
    const reused: { conflict: JournalEntry; again: JournalEntry }[] = [];
    for (const conflict of conflicts) {
      // The payload the key rightly stands for: the one it carried before the conflict, if any.
      const invited = retryableOf(conflict) === true;
      const original = leads.find((e) => e.idempotency_key === conflict.idempotency_key && e.t <= conflict.t && e.request_hash !== conflict.request_hash);
      for (const again of leads) {
        if (
          again === conflict ||
          again.idempotency_key !== conflict.idempotency_key ||
          !reactsTo(requests, conflict, again, thresholds.retry_after_tolerance_ms)
        )
          continue;
        if (invited && again.request_hash === conflict.request_hash) continue; // the retry the dealer asked for
        if (original === undefined || again.request_hash !== original.request_hash) reused.push({ conflict, again });
      }
    }
    if (reused.length === 0)
      return pass(
        conflicts.map((e) => e.id),
        `never reused a conflicting idempotency_key (${plural(conflicts.length, 'IDEMPOTENCY_CONFLICT')})`,
      );
    const same = reused.filter((r) => r.again.request_hash === r.conflict.request_hash).length;
    return fail(
      reused.flatMap((r) => [r.conflict.id, r.again.id]),
      `sent a conflicting idempotency_key again ${plural(reused.length, 'time')} (${same} with the same changed payload) after IDEMPOTENCY_CONFLICT; ` +
        'give a new lead a new idempotency_key',
    );
  },
};
