/**
 * idempotency: a lead.submit whose outcome the buyer does not know — it got a retryable error,
 * or no usable answer (reset, hang, its own timeout, a truncated body, bytes that are not JSON,
 * a non-JSON-RPC reply such as a gateway's HTML 502) — may already have created a lead.
 * Its retry must reuse the same `idempotency_key` with the same payload so the dealer can
 * return the original lead instead of a duplicate.
 *
 * The retry is the next lead.submit with the same payload hash or the same key. This relies on
 * `request_hash` leaving `idempotency_key` out, so that a new key for the same payload is
 * still recognisable as the same payload.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { describeUnknown, nextRequest, outcomeUnknown, sawRetryableError } from './read-line.js';

const LEAD_SKILL = 'lead.submit';

function buyerCannotKnow(lead: JournalEntry): boolean {
  return outcomeUnknown(lead) || sawRetryableError(lead);
}

function describeTrigger(lead: JournalEntry): string {
  return outcomeUnknown(lead) ? describeUnknown(lead) : `a retryable ${lead.error_code ?? `error ${lead.rpc_code}`}`;
}

/** Why a retry broke idempotency, or undefined when it reused key and payload. */
function retryProblem(original: JournalEntry, retry: JournalEntry): string | undefined {
  const samePayload = original.request_hash !== undefined && retry.request_hash === original.request_hash;
  const sameKey = original.idempotency_key !== undefined && retry.idempotency_key === original.idempotency_key;
  if (samePayload && sameKey) return undefined;
  if (!samePayload) return 'reused the idempotency_key with a changed payload';
  if (original.idempotency_key === undefined) return 'retried a lead that had no idempotency_key';
  return 'retried the same lead with a new idempotency_key';
}

export const idempotencyCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-006',
    level: 'MUST',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › IDEMPOTENCY_CONFLICT', quote: 'A retry with the same key AND the same payload MUST be treated as idempotent' },
  },
  skills: ['lead.submit'],
  rule: "A lead.submit retried after a retryable error (the reply's own retryable first, else the code's default) or an unknown outcome reuses its idempotency_key with the same payload.",
  grade({ requests, thresholds }) {
    const good: string[] = [];
    const bad: { ids: string[]; problem: string }[] = [];
    let unknown = 0;
    for (const [index, lead] of requests.entries()) {
      if (lead.skill !== LEAD_SKILL || !buyerCannotKnow(lead)) continue;
      unknown++;
      const retry = nextRequest(
        requests,
        index,
        (e) =>
          e.skill === LEAD_SKILL &&
          ((lead.request_hash !== undefined && e.request_hash === lead.request_hash) ||
            (lead.idempotency_key !== undefined && e.idempotency_key === lead.idempotency_key)),
        thresholds.retry_after_tolerance_ms,
      );
      if (retry === undefined) continue;
      const problem = retryProblem(lead, retry);
      if (problem === undefined) good.push(lead.id, retry.id);
      else bad.push({ ids: [lead.id, retry.id], problem: `${problem} after ${describeTrigger(lead)}` });
    }

    if (unknown === 0) return notExercised('no lead.submit failed retryably or had an unknown outcome for this client');
    if (good.length === 0 && bad.length === 0) {
      return notExercised(`${plural(unknown, 'lead.submit')} failed retryably or had an unknown outcome, but none was retried`);
    }
    if (bad.length === 0) return pass(good, `reused idempotency_key and payload on ${plural(good.length / 2, 'lead retry', 'lead retries')}`);
    return fail(
      bad.flatMap((b) => b.ids),
      `${bad[0].problem}${bad.length > 1 ? ` (${bad.length} retries broke idempotency)` : ''}; ` +
        'retry a lead with the same idempotency_key and the same payload so the dealer cannot create it twice',
    );
  },
};
