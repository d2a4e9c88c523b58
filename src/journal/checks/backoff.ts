/**
 * backoff: after a retryable INTERNAL_ERROR (the dealer's, or the proxy's "upstream unreachable"),
 * retries of the same request wait longer each time and stop after a bound.
 *
 * A retry chain starts at such an error and follows the same request (skill + data hash) for as
 * long as each attempt fails the same way. A wait is measured from the end of one attempt to the
 * start of the next, so slow error replies do not count as backing off. Gaps "grow" when none
 * shrinks by more than the timing tolerance and the last exceeds the first by more than it —
 * exponential backoff with jitter passes, a fixed interval or hammering does not.
 */
import type { JournalEntry } from '../entry.js';
import type { Thresholds } from '../thresholds.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { requestIdentity, sawError, skillOf } from './journal-facts.js';

function isRetryableInternalError(entry: JournalEntry): boolean {
  return sawError(entry, ['INTERNAL_ERROR']) && entry.retryable !== false;
}

/** Groups requests into retry chains, each starting at a retryable INTERNAL_ERROR. */
function retryChains(requests: readonly JournalEntry[]): JournalEntry[][] {
  const chains: JournalEntry[][] = [];
  const open = new Map<string, JournalEntry[]>();
  for (const entry of requests) {
    const identity = requestIdentity(entry);
    if (identity === undefined) continue;
    let chain = open.get(identity);
    if (chain !== undefined) chain.push(entry);
    else if (isRetryableInternalError(entry)) chains.push((chain = [entry]));
    else continue;
    if (isRetryableInternalError(entry)) open.set(identity, chain);
    else open.delete(identity);
  }
  return chains;
}

/** What is wrong with one chain, or undefined when it backed off properly. */
function chainProblem(chain: JournalEntry[], thresholds: Thresholds): string | undefined {
  const { backoff_max_retries: maxRetries, retry_after_tolerance_ms: tolerance } = thresholds;
  const retries = chain.length - 1;
  if (retries > maxRetries) return `retried ${skillOf(chain[0])} ${retries} times (bound ${maxRetries})`;
  const waits = chain.slice(1).map((attempt, i) => Math.max(0, attempt.t - (chain[i].t + chain[i].duration_ms)));
  for (let i = 1; i < waits.length; i++) {
    if (waits[i] < waits[i - 1] - tolerance) {
      return `waited less before retry ${i + 1} of ${skillOf(chain[0])} than before retry ${i} (${waits[i]} ms after ${waits[i - 1]} ms)`;
    }
  }
  if (waits.length >= 2 && waits[waits.length - 1] - waits[0] <= tolerance) {
    return `retried ${skillOf(chain[0])} ${retries} times without growing gaps (${waits.join(', ')} ms)`;
  }
  return undefined;
}

export const backoffCheck: Check = {
  name: 'backoff',
  rule: 'After a retryable INTERNAL_ERROR, retries of the same request have growing gaps and stop after backoff_max_retries.',
  grade({ requests, thresholds }) {
    const chains = retryChains(requests);
    if (chains.length === 0) return notExercised('no retryable INTERNAL_ERROR reached this client');
    const bad = chains.map((chain) => ({ chain, problem: chainProblem(chain, thresholds) })).filter((c) => c.problem !== undefined);
    if (bad.length === 0) {
      const retries = chains.reduce((n, c) => n + c.length - 1, 0);
      return pass(
        chains.flat().map((e) => e.id),
        `backed off properly after ${plural(chains.length, 'retryable INTERNAL_ERROR')} (${plural(retries, 'retry', 'retries')}, bound ${thresholds.backoff_max_retries})`,
      );
    }
    return fail(
      bad.flatMap((c) => c.chain.map((e) => e.id)),
      `${bad[0].problem}${bad.length > 1 ? ` (and ${bad.length - 1} more)` : ''}; back off exponentially with jitter and give up after ${thresholds.backoff_max_retries} retries`,
    );
  },
};
