/**
 * validation-fix: a validation error (SCHEMA_VALIDATION_FAILED, MISSING_REQUIRED_FIELD,
 * INVALID_CONDITION) lists every problem of the payload at once in `details.errors[]`, so that the
 * buyer fixes them all in one pass. The buyer's next request for that skill must not break the
 * request schemas at any listed place (the proxy checks each request with the schemas the mock
 * dealer validates with, `request_problems`), and must not be the same payload again; giving up
 * (no further request for the skill) is fine too. When the dealer marked that error
 * `retryable: true` (its per-instance value wins over the codes' default of false: a dealer whose
 * schema was reloading), the same payload again is the retry it invited; the backoff check grades
 * the wait. A changed payload must still fix every listed problem.
 */
import { VALIDATION_CODES } from '../../protocol/codes.js';
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { nextRequest, retryableOf, sawError, skillOf } from './read-line.js';

/** A listed place the next request still breaks: the place itself or a place inside it. */
function stillBroken(listed: string, problems: readonly string[]): boolean {
  return problems.some((p) => p === listed || p.startsWith(`${listed}/`));
}

function problemWith(refusal: JournalEntry, next: JournalEntry): string | undefined {
  if (next.request_hash !== undefined && next.request_hash === refusal.request_hash) {
    return retryableOf(refusal) === true ? undefined : 're-sent the same payload after retryable: false';
  }
  const listed = refusal.listed_problems ?? [];
  const left = listed.filter((l) => stillBroken(l, next.request_problems ?? []));
  if (left.length === 0) return undefined;
  return `fixed ${listed.length - left.length} of ${plural(listed.length, 'listed problem')} (still broken: ${left.join(', ')})`;
}

export const validationFixCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-009',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: {
      section: 'details.errors[] — all problems at once',
      quote: 'so a buyer agent fixes the whole payload in one pass instead of one round-trip per error',
    },
  },
  rule: "After a validation error that lists its problems, the next request for that skill fixes every listed problem at once (checked with the request schemas), or the client gives up; when the reply says retryable: true (the dealer's per-instance value wins over the codes' default of false), the same payload again is also right (backoff grades the wait).",
  grade({ requests, thresholds }) {
    const good: string[] = [];
    const bad: { ids: string[]; problem: string; skill: string }[] = [];
    let refusals = 0;
    for (const [index, refusal] of requests.entries()) {
      if (!sawError(refusal, [...VALIDATION_CODES]) || !refusal.listed_problems?.length) continue;
      refusals++;
      const next = nextRequest(requests, index, (e) => skillOf(e) === skillOf(refusal), thresholds.retry_after_tolerance_ms);
      if (next === undefined) {
        good.push(refusal.id); // gave up on it
        continue;
      }
      const problem = problemWith(refusal, next);
      if (problem === undefined) good.push(refusal.id, next.id);
      else bad.push({ ids: [refusal.id, next.id], problem, skill: skillOf(refusal) });
    }
    if (refusals === 0) return notExercised('no validation error with listed problems reached this client');
    if (bad.length === 0) return pass(good, `fixed every listed problem at once, or gave up, after ${plural(refusals, 'validation error')}`);
    return fail(
      bad.flatMap((b) => b.ids),
      `${bad[0].problem} after ${bad[0].skill} was refused${bad.length > 1 ? ` (and ${bad.length - 1} more)` : ''} (judged over ${plural(refusals, 'validation error')}); ` +
        'fix every problem details.errors[] lists before sending again',
    );
  },
};
