/**
 * backoff: after a retryable INTERNAL_ERROR (the dealer's, the proxy's "upstream unreachable", or
 * an error event inside a stream) or a reply whose outcome the buyer cannot know (reset, hang,
 * truncated, not JSON, not JSON-RPC), retries of the same request back off and stop after a bound.
 *
 * A retry chain starts at such a reply and follows the same request (skill + data hash) for as
 * long as each attempt fails the same way; a copy sent while the previous attempt was still in
 * flight is not a reaction and is left out. A wait is measured from the end of one attempt to the
 * start of the next, so slow error replies do not count as backing off.
 *
 * The trend is graded, not every gap: exponential backoff with full jitter (a random wait up to
 * base·2^n) may shrink one gap and still backs off. What fails is what proves there is no backoff:
 * too many retries, retrying at once, gaps that stay constant, or gaps that shrink overall.
 */
import type { JournalEntry } from '../../journal/entry.js';
import type { Thresholds } from '../thresholds.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { ms, outcomeUnknown, requestIdentity, sawError, sentAfterReply, skillOf } from './read-line.js';

/** Gaps may differ by this share of their median and still count as constant (besides the tolerance). */
const CONSTANT_SPREAD = 0.2;
/** Gaps needed before constancy or a shrinking trend can be told from jitter. */
const GAPS_FOR_A_TREND = 3;

function failedRetryably(entry: JournalEntry): boolean {
  return outcomeUnknown(entry) || (sawError(entry, ['INTERNAL_ERROR']) && entry.retryable !== false);
}

/** Groups requests into retry chains, each starting at a retryable failure. */
function retryChains(requests: readonly JournalEntry[]): JournalEntry[][] {
  const chains: JournalEntry[][] = [];
  const open = new Map<string, JournalEntry[]>();
  for (const entry of requests) {
    const identity = requestIdentity(entry);
    if (identity === undefined) continue;
    let chain = open.get(identity);
    if (chain !== undefined) {
      if (!sentAfterReply(chain[chain.length - 1], entry)) continue; // already in flight: not a retry
      chain.push(entry);
    } else if (failedRetryably(entry)) chains.push((chain = [entry]));
    else continue;
    if (failedRetryably(entry)) open.set(identity, chain);
    else open.delete(identity);
  }
  return chains;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** What is wrong with one chain, or undefined when it backed off. */
function chainProblem(chain: JournalEntry[], thresholds: Thresholds): string | undefined {
  const { backoff_max_retries: maxRetries, retry_after_tolerance_ms: tolerance } = thresholds;
  const retries = chain.length - 1;
  const what = skillOf(chain[0]);
  if (retries > maxRetries) return `retried ${what} ${retries} times (bound ${maxRetries})`;
  const waits = chain.slice(1).map((attempt, i) => Math.max(0, attempt.t - (chain[i].t + chain[i].duration_ms)));
  const shown = waits.map((w) => Math.round(w)).join(', ');
  // On average no wait beyond timing noise: one slow client-side step does not make hammering backoff.
  if (waits.length >= 2 && waits.reduce((a, b) => a + b, 0) / waits.length <= tolerance) return `retried ${what} ${retries} times at once (gaps ${shown} ms)`;
  if (waits.length < GAPS_FOR_A_TREND) return undefined;
  const spread = Math.max(...waits) - Math.min(...waits);
  if (spread <= Math.max(tolerance, CONSTANT_SPREAD * median(waits))) {
    return `retried ${what} ${retries} times at a constant interval (gaps ${shown} ms)`;
  }
  const half = waits.length >> 1;
  const earlier = Math.max(...waits.slice(0, half));
  const later = Math.max(...waits.slice(half));
  if (later < earlier - tolerance) {
    return `waited less and less before retrying ${what} (gaps ${shown} ms: at most ${ms(later)} late against ${ms(earlier)} early)`;
  }
  return undefined;
}

export const backoffCheck: Check = {
  rule: 'After a retryable INTERNAL_ERROR or an unknown outcome, retries of the same request back off (gaps that grow, jitter allowed) and stop after backoff_max_retries.',
  grade({ requests, thresholds }) {
    const chains = retryChains(requests);
    if (chains.length === 0) return notExercised('no retryable INTERNAL_ERROR or unknown outcome reached this client');
    const bad = chains.map((chain) => ({ chain, problem: chainProblem(chain, thresholds) })).filter((c) => c.problem !== undefined);
    if (bad.length === 0) {
      const retries = chains.reduce((n, c) => n + c.length - 1, 0);
      return pass(
        chains.flat().map((e) => e.id),
        `backed off after ${plural(chains.length, 'retryable failure')} (${plural(retries, 'retry', 'retries')}, bound ${thresholds.backoff_max_retries})`,
      );
    }
    return fail(
      bad.flatMap((c) => c.chain.map((e) => e.id)),
      `${bad[0].problem}${bad.length > 1 ? ` (and ${bad.length - 1} more)` : ''}; back off exponentially with jitter and give up after ${thresholds.backoff_max_retries} retries`,
    );
  },
};
