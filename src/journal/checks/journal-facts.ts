/**
 * How the checks read a journal line: what the buyer actually saw, what "the same skill" and
 * "the same request" mean, and the retry hint. Every check asks these questions the same way.
 */
import type { JournalEntry } from '../entry.js';

/** The buyer never got the answer: the connection was reset, or it left before the reply ended. */
export function replyWasLost(entry: JournalEntry): boolean {
  return entry.status === 0 || entry.aborted === true;
}

function isErrorReply(entry: JournalEntry): boolean {
  return entry.error_code !== undefined || entry.rpc_code !== undefined;
}

/**
 * The buyer received an error reply, with one of `codes` when given (a lost reply teaches the
 * buyer nothing, so it never counts).
 */
export function sawError(entry: JournalEntry, codes?: readonly string[]): boolean {
  if (replyWasLost(entry) || !isErrorReply(entry)) return false;
  return codes === undefined || (entry.error_code !== undefined && codes.includes(entry.error_code));
}

/** The buyer received a successful reply. */
export function sawSuccess(entry: JournalEntry): boolean {
  return !replyWasLost(entry) && !isErrorReply(entry) && entry.status >= 200 && entry.status < 300;
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

/** The first request after position `index` that satisfies `test`. */
export function nextRequest(
  requests: readonly JournalEntry[],
  index: number,
  test: (entry: JournalEntry) => boolean,
): JournalEntry | undefined {
  for (let i = index + 1; i < requests.length; i++) if (test(requests[i])) return requests[i];
  return undefined;
}

/** Milliseconds between the starts of two requests. */
export function gapMs(earlier: JournalEntry, later: JournalEntry): number {
  return later.t - earlier.t;
}
