/**
 * backoff: after a retryable error (an INTERNAL_ERROR — the dealer's, the proxy's "upstream
 * unreachable", or an error event inside a stream — or any code the dealer marked `retryable:
 * true`: its per-instance value first, the code's table default only when the reply carries none;
 * a RATE_LIMITED with a retry hint is graded against its hint by retry-after and no-storm instead)
 * or a reply whose outcome the buyer cannot know (reset, hang, truncated, not JSON, not JSON-RPC),
 * retries of the same request back off and stop after a bound. An INTERNAL_ERROR the dealer marked
 * `retryable: false` starts no chain: it is final, and non-retryable grades a resend.
 *
 * A retry chain starts at such a reply and follows the same request (skill + data hash) for as
 * long as each attempt fails the same way; a copy sent while the previous attempt was still in
 * flight is not a reaction and is left out. A wait is measured from the end of one attempt to the
 * start of the next, so slow error replies do not count as backing off.
 *
 * One wait rarely tells a flaw from chance: exponential backoff with full jitter (a wait drawn
 * uniformly from [0, base·2^n]) draws a short wait now and then. So, apart from the bound on
 * retries, the verdict is a test over every wait of the run, calibrated against the most lenient
 * backoff the seed allows — full jitter with a base of 100 ms — so that such a buyer is failed by
 * chance at most 1 % of the time (half of it for each of the two tests below):
 *
 * - retrying at once: each wait w after the n-th retry of its chain has the chance
 *   u = (w + 1 ms) / (100 ms · 2^n) (capped at 1) that full jitter would wait no longer; under full
 *   jitter u is uniform (larger for a larger base), so Fisher's sum −2·Σ ln u is at most χ² with
 *   2·(waits) degrees of freedom. A sum that full jitter reaches less than 0.5 % of the time, with
 *   at least two waits within the timing tolerance, fails: three chains of one immediate retry each
 *   are enough.
 * - not growing: under full jitter, w / 2^n is drawn uniformly from the same range for every n
 *   (equal jitter and the reference buyers draw from a narrower one). Within a chain, how small
 *   the later values are next to the first (waits that shrink, or stay constant where they should
 *   double) has a known chance; the chains' chances are combined the same way, and fail below 0.5 %.
 *
 * test/report/backoff-simulation.test.ts measures the false-FAIL rate on simulated buyers.
 */
import type { JournalEntry } from '../../journal/entry.js';
import type { Thresholds } from '../thresholds.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { outcomeUnknown, requestIdentity, retryHintMs, sawRetryableError, sentAfterReply, skillOf } from './read-line.js';

/** The smallest base of the full-jitter backoff the rule must let pass. */
export const FULL_JITTER_BASE_MS = 100;
/** How unlikely (under full jitter) the waits must be before each test fails the buyer. */
export const TEST_LEVEL = 0.005;
/** Retries within the timing tolerance needed before "at once" is judged at all. */
const MIN_AT_ONCE = 2;
/** Waits a chain needs before their sizes say anything about growth. */
const MIN_WAITS_FOR_TREND = 2;
/** Timing resolution of the journal: start times are whole milliseconds. */
const RESOLUTION_MS = 1;

function failedRetryably(entry: JournalEntry): boolean {
  return outcomeUnknown(entry) || (sawRetryableError(entry) && retryHintMs(entry) === undefined);
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

/** Milliseconds from the end of each attempt to the start of the next. */
function waitsOf(chain: readonly JournalEntry[]): number[] {
  return chain.slice(1).map((attempt, i) => Math.max(0, attempt.t - (chain[i].t + chain[i].duration_ms)));
}

/** P(χ² with 2·m degrees of freedom > x), closed form for even degrees of freedom. */
export function chiSquareEvenTail(x: number, m: number): number {
  let term = 1;
  let sum = 1;
  for (let j = 1; j < m; j++) {
    term *= x / 2 / j;
    sum += term;
  }
  return Math.min(1, Math.exp(-x / 2) * sum);
}

/** Fisher's combination of independent chances: how likely a sum this large is when all are uniform. */
export function fisherCombined(chances: readonly number[]): number {
  if (chances.length === 0) return 1;
  const x = -2 * chances.reduce((sum, p) => sum + Math.log(Math.max(p, Number.MIN_VALUE)), 0);
  return chiSquareEvenTail(x, chances.length);
}

/**
 * How likely, when the values are drawn independently and uniformly, it is that every value after
 * the first is at most this small a share of the first: P(max(v₂…v_k) ≤ R·v₁) = R^(k−1)/k for R ≤ 1,
 * 1 − (k−1)/(k·R) above. Waits that shrink (or stay constant while they should double) make R small.
 */
export function shrinkingChance(values: readonly number[]): number {
  const k = values.length;
  if (k < 2) return 1;
  const first = values[0]!;
  if (first <= 0) return 1;
  const ratio = Math.max(...values.slice(1)) / first;
  return ratio <= 1 ? ratio ** (k - 1) / k : 1 - (k - 1) / (k * ratio);
}

interface Judged {
  chain: JournalEntry[];
  waits: number[];
}

const shown = (waits: number[]) => waits.map((w) => Math.round(w)).join(', ');
const percent = (p: number) => (p < 0.001 ? '< 0.1 %' : `${(p * 100).toFixed(1)} %`);

/**
 * The waits a PASS was judged on, as the proxy saw them: a buyer that means to retry at once but
 * is held by a busy machine reaches the proxy late, and the wire cannot tell that from a wait.
 */
function waitSpread(judged: Judged[]): string {
  const waits = judged.flatMap((j) => j.waits).sort((a, b) => a - b);
  if (waits.length === 0) return '';
  const median = waits[(waits.length - 1) >> 1]!;
  return `; waits ${Math.round(waits[0]!)}–${Math.round(waits[waits.length - 1]!)} ms, median ${Math.round(median)} ms`;
}

/** Too many retries in one chain: a fact, not a chance. */
function overBound(judged: Judged[], thresholds: Thresholds): string | undefined {
  const over = judged.filter((j) => j.waits.length > thresholds.backoff_max_retries);
  if (over.length === 0) return undefined;
  const worst = over.reduce((a, b) => (b.waits.length > a.waits.length ? b : a));
  return `retried ${skillOf(worst.chain[0])} ${worst.waits.length} times (bound ${thresholds.backoff_max_retries})`;
}

/** Retries sent at once, judged over every wait of the run. */
function atOnce(judged: Judged[], thresholds: Thresholds): { problem: string; ids: string[] } | undefined {
  const tolerance = thresholds.retry_after_tolerance_ms;
  const chances = judged.flatMap((j) => j.waits.map((w, n) => Math.min(1, (w + RESOLUTION_MS) / (FULL_JITTER_BASE_MS * 2 ** n))));
  const hurried = judged.filter((j) => j.waits.some((w) => w <= tolerance));
  const count = judged.reduce((sum, j) => sum + j.waits.filter((w) => w <= tolerance).length, 0);
  if (count < MIN_AT_ONCE) return undefined;
  const chance = fisherCombined(chances);
  if (chance >= TEST_LEVEL) return undefined;
  const example = hurried[0];
  return {
    problem:
      `retried at once ${plural(count, 'time')} in ${plural(hurried.length, 'retry chain')} (within ${tolerance} ms; ` +
      `first: ${skillOf(example.chain[0])} after gaps of ${shown(example.waits)} ms), judged over ${plural(chances.length, 'retry', 'retries')}: ` +
      `full-jitter backoff waits this little ${percent(chance)} of the time`,
    ids: hurried.flatMap((j) => j.chain.map((e) => e.id)),
  };
}

/** Waits that do not grow, judged over every chain long enough to show an order. */
function notGrowing(judged: Judged[]): { problem: string; ids: string[] } | undefined {
  const long = judged.filter((j) => j.waits.length >= MIN_WAITS_FOR_TREND);
  if (long.length === 0) return undefined;
  const chances = long.map((j) => shrinkingChance(j.waits.map((w, n) => (w + RESOLUTION_MS) / 2 ** n)));
  const chance = fisherCombined(chances);
  if (chance >= TEST_LEVEL) return undefined;
  const worst = long[chances.indexOf(Math.min(...chances))];
  return {
    problem:
      `the waits did not grow exponentially in ${plural(long.length, 'retry chain')} (e.g. ${skillOf(worst.chain[0])}: gaps ${shown(worst.waits)} ms), ` +
      `judged over ${plural(
        long.reduce((n, j) => n + j.waits.length, 0),
        'retry',
        'retries',
      )}: jittered exponential backoff waits like this ${percent(chance)} of the time`,
    ids: long.flatMap((j) => j.chain.map((e) => e.id)),
  };
}

export const backoffCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-003',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Per-code semantics › INTERNAL_ERROR; Error payload shape (retryable)', quote: 'the buyer agent SHOULD retry with exponential backoff' },
  },
  rule: "After a retryable error (the reply's own retryable first, else the code's default: INTERNAL_ERROR, or any code the dealer marked retryable: true; RATE_LIMITED with a hint is retry-after's) or an unknown outcome, retries of the same request back off exponentially (judged over every wait of the run, full jitter allowed) and stop after backoff_max_retries.",
  grade({ requests, thresholds }) {
    const chains = retryChains(requests);
    if (chains.length === 0) return notExercised('no retryable error without a retry hint and no unknown outcome reached this client');
    const judged = chains.map((chain) => ({ chain, waits: waitsOf(chain) }));
    const retries = judged.reduce((n, j) => n + j.waits.length, 0);
    const advice = `; back off exponentially with jitter and give up after ${thresholds.backoff_max_retries} retries`;
    const bound = overBound(judged, thresholds);
    if (bound !== undefined) {
      const ids = judged.filter((j) => j.waits.length > thresholds.backoff_max_retries).flatMap((j) => j.chain.map((e) => e.id));
      return fail(ids, bound + advice);
    }
    const found = atOnce(judged, thresholds) ?? notGrowing(judged);
    if (found !== undefined) return fail(found.ids, found.problem + advice);
    return pass(
      chains.flat().map((e) => e.id),
      `backed off after ${plural(chains.length, 'retryable failure')} (judged over ${plural(retries, 'retry', 'retries')}${waitSpread(judged)}, bound ${thresholds.backoff_max_retries})`,
    );
  },
};
