/**
 * How the checks read a journal line: what the buyer actually saw, what "the same skill" and
 * "the same request" mean, and the retry hint. Every check asks these questions the same way.
 */
import { AAP_CODE_TABLE, isAapCode } from '../../protocol/codes.js';
import type { JournalEntry } from '../../journal/entry.js';
import type { ReplyOutcome } from '../../journal/outcome.js';

/**
 * What the buyer learned from a line's reply. Lines written before `outcome` existed (or by hand
 * without it) are read the old way: no status or an abort is unknown, an error code is an error.
 */
export function outcomeOf(entry: JournalEntry): ReplyOutcome {
  if (entry.outcome !== undefined) return entry.outcome;
  if (entry.status === 0 || entry.aborted === true) return 'unknown';
  return entry.error_code !== undefined || entry.rpc_code !== undefined ? 'error' : 'result';
}

/**
 * The buyer cannot know whether its request took effect: reset, hang, its own timeout, a cut body,
 * bytes that are not JSON, or a reply that is not JSON-RPC (a gateway's HTML 502).
 */
export function outcomeUnknown(entry: JournalEntry): boolean {
  return outcomeOf(entry) === 'unknown';
}

/** Why the outcome was unknown, in words for an explanation. */
export function describeUnknown(entry: JournalEntry): string {
  switch (entry.unknown_cause) {
    case 'reset':
      return 'a connection reset';
    case 'hang':
      return 'a reply that never came';
    case 'timeout':
      return 'giving up on the reply';
    case 'truncated':
      return 'a truncated reply';
    case 'proxy_timeout':
      return "a reply ended by the proxy's upstream timeout";
    case 'malformed_json':
      return 'a reply that is not valid JSON';
    case 'not_jsonrpc':
      return `a non-JSON-RPC reply (HTTP ${entry.status})`;
    default:
      return 'a lost reply';
  }
}

/**
 * The buyer received a JSON-RPC error (a whole body or an SSE error event), with one of `codes`
 * when given (a lost reply teaches the buyer nothing, so it never counts).
 */
export function sawError(entry: JournalEntry, codes?: readonly string[]): boolean {
  if (outcomeOf(entry) !== 'error') return false;
  return codes === undefined || (entry.error_code !== undefined && codes.includes(entry.error_code));
}

/**
 * Whether the dealer said the same request may be sent again after a backoff: the `retryable` its
 * reply carried (the seed: "retryable is a default, not a hard rule … Buyer agents MUST honor the
 * value the dealer returns rather than the table default"), else the table default of the AAP code,
 * else undefined (no AAP code: an A2A error such as -32008, or a bare JSON-RPC error).
 */
export function retryableOf(entry: JournalEntry): boolean | undefined {
  if (typeof entry.retryable === 'boolean') return entry.retryable;
  return isAapCode(entry.error_code) ? AAP_CODE_TABLE[entry.error_code].retryable : undefined;
}

/** The buyer received an error (with one of `codes` when given) that the dealer marked retryable, per instance first. */
export function sawRetryableError(entry: JournalEntry, codes?: readonly string[]): boolean {
  return sawError(entry, codes) && retryableOf(entry) === true;
}

/** The buyer received an error (with one of `codes` when given) that the dealer marked not retryable, per instance first. */
export function sawFinalError(entry: JournalEntry, codes?: readonly string[]): boolean {
  return sawError(entry, codes) && retryableOf(entry) === false;
}

/** The buyer received a successful reply. */
export function sawSuccess(entry: JournalEntry): boolean {
  return outcomeOf(entry) === 'result' && entry.status >= 200 && entry.status < 300;
}

/**
 * Whether `later` was sent after the reply to `earlier` was complete, so it can be a reaction to
 * it; requests already in flight when the reply went out are not. The start time is whole
 * milliseconds and the duration is not, so one millisecond of slack keeps a prompt reaction in.
 */
export function sentAfterReply(earlier: JournalEntry, later: JournalEntry): boolean {
  return later.t >= earlier.t + earlier.duration_ms - 1;
}

/** Whole milliseconds for an explanation. */
export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** What "the same skill" compares: the AAP skill, or the JSON-RPC method for requests without one. */
export function skillOf(entry: JournalEntry): string {
  return entry.skill ?? entry.method ?? entry.path;
}

/**
 * "The same request": same skill and the same canonical hash of the DataPart data (so a new
 * `messageId` does not make it new). Undefined when the line has no hash: such a request
 * cannot be compared and the checks that need it leave it out.
 */
export function requestIdentity(entry: JournalEntry): string | undefined {
  return entry.request_hash === undefined ? undefined : `${skillOf(entry)}\u0000${entry.request_hash}`;
}

/** The retry hint of a RATE_LIMITED reply the buyer saw, in ms; undefined when there was none. */
export function retryHintMs(entry: JournalEntry): number | undefined {
  if (!sawError(entry, ['RATE_LIMITED'])) return undefined;
  return typeof entry.retry_after_ms === 'number' && entry.retry_after_ms > 0 ? entry.retry_after_ms : undefined;
}

/**
 * Whether `later` can be the buyer's reaction to the reply to `earlier`: it started once that reply
 * was complete (sentAfterReply), and did not cross it on the wire. A buyer with several requests in
 * flight sends its next one as any reply comes in, so a request that reaches the proxy within
 * `crossingMs` of this reply's end, while another of the buyer's requests was in flight beside the first or as it starts,
 * may have left before the buyer read the reply (the buyer zoo of test/buyer-zoo/ shows such crossings on
 * a busy machine); it is not taken as a reaction. A buyer with nothing else in flight gets no such
 * allowance: its prompt reactions count.
 */
export function reactsTo(requests: readonly JournalEntry[], earlier: JournalEntry, later: JournalEntry, crossingMs: number): boolean {
  if (!sentAfterReply(earlier, later)) return false;
  const replyEnd = earlier.t + earlier.duration_ms;
  if (later.t >= replyEnd + crossingMs) return true;
  // Only the few requests this close to a reply get here: is another one in flight beside `earlier`, or as `later` starts?
  const inFlight = inFlightOf(requests);
  return !inFlight.any(earlier.t, replyEnd, earlier, later) && !inFlight.any(later.t, later.t, earlier, later);
}

/**
 * Which of a client's requests were in flight when, answered in one lookup: for each prefix of the
 * requests in start order, the three that end last. A request other than two given ones in flight
 * across [from, to) started before `to` and ends after `from`, so it is among the three of the
 * prefix before `to`, if any is. Built once per request list and kept beside it, so the checks'
 * many questions over a full journal ring cost a binary search each, not a walk of the client.
 */
class InFlight {
  private readonly starts: number[];
  /** top[3k], top[3k+1], top[3k+2]: the three latest-ending requests of the first k, latest first. */
  private readonly top: (JournalEntry | undefined)[];

  constructor(requests: readonly JournalEntry[]) {
    const sorted = [...requests].sort((a, b) => a.t - b.t);
    this.starts = sorted.map((r) => r.t);
    this.top = new Array(3 * (sorted.length + 1)).fill(undefined);
    const end = (r: JournalEntry | undefined) => (r === undefined ? -Infinity : r.t + r.duration_ms);
    sorted.forEach((r, k) => {
      const best = [this.top[3 * k], this.top[3 * k + 1], this.top[3 * k + 2], r].sort((a, b) => end(b) - end(a));
      for (let j = 0; j < 3; j++) this.top[3 * (k + 1) + j] = best[j];
    });
  }

  /**
   * Whether a request other than `a` and `b` surely started before `to` and ended after `from`.
   * Starts are whole milliseconds and ends are not, so "surely" is sentAfterReply's one millisecond
   * of slack read the other way: a request that came within the millisecond another one ended in
   * may have come after it, and is not taken as in flight beside it (CI: a one-at-a-time buyer's
   * prompt answers read as crossings, and its resend at once as none).
   */
  any(from: number, to: number, a: JournalEntry, b: JournalEntry): boolean {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= to - 1) lo = mid + 1;
      else hi = mid;
    }
    for (let j = 0; j < 3; j++) {
      const r = this.top[3 * lo + j];
      if (r === undefined) return false;
      if (r !== a && r !== b) return r.t + r.duration_ms >= from + 1;
    }
    return false;
  }
}

/**
 * Each request list's index, with what it was built over: live grading (--observe) grows and trims
 * its lists in place, so an index is used again only while the list still has the same length and
 * the same first and last request.
 */
const inFlightIndexes = new WeakMap<readonly JournalEntry[], { index: InFlight; length: number; first?: JournalEntry; last?: JournalEntry }>();

function inFlightOf(requests: readonly JournalEntry[]): InFlight {
  const kept = inFlightIndexes.get(requests);
  const first = requests[0];
  const last = requests[requests.length - 1];
  if (kept !== undefined && kept.length === requests.length && kept.first === first && kept.last === last) return kept.index;
  const index = new InFlight(requests);
  inFlightIndexes.set(requests, { index, length: requests.length, first, last });
  return index;
}

/**
 * The first request after position `index` that satisfies `test` and reacts to the reply at
 * `index` (reactsTo): the buyer's reaction to that reply.
 */
export function nextRequest(
  requests: readonly JournalEntry[],
  index: number,
  test: (entry: JournalEntry) => boolean,
  crossingMs: number,
): JournalEntry | undefined {
  const reply = requests[index];
  for (let i = index + 1; i < requests.length; i++) if (reactsTo(requests, reply, requests[i], crossingMs) && test(requests[i])) return requests[i];
  return undefined;
}

/** Milliseconds between the starts of two requests. */
export function gapMs(earlier: JournalEntry, later: JournalEntry): number {
  return later.t - earlier.t;
}
