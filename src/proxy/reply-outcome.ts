/**
 * What happened to one reply: the outcome the journal line is built from, and the two ways the
 * proxy learns a reply's error after the fact (a JSON body it kept, a JSON body it rewrote).
 */
import type { JsonRpcError } from '../protocol/envelopes.js';
import { leadSubmitStatus, readRpcReplyBytes } from '../protocol/reply-kind.js';
import type { ReplyObservation } from '../journal/build-entry.js';
import type { DealerReplyCopy } from './dealer-check.js';
import { describeUpstreamError } from './forward.js';
import { isUpstreamTimeout } from './upstream-timer.js';

/** What happened to one reply: what the journal keeps of it, plus what the proxy still needs while sending. */
export interface Outcome extends ReplyObservation {
  status?: number;
  /** Chunks of a small JSON reply from the dealer, parsed only when the journal is written. */
  dealerJson?: Buffer[];
  /** With --check-dealer: what the dealer sent, bounded, checked once the reply is out. */
  dealerCopy?: DealerReplyCopy;
}

/**
 * Reads the dealer JSON kept by a DealerReplyWatch: its error, and for a JSON-RPC request what
 * kind of body it was.
 */
export function readDealerJson(outcome: Outcome, rpc: boolean, lead = false): void {
  if (!outcome.dealerJson) return;
  const bytes = Buffer.concat(outcome.dealerJson);
  const read = readRpcReplyBytes(bytes);
  if (read.error) outcome.error = read.error;
  else if (rpc) outcome.body = read.kind;
  // lead.submit replies are kept whole (they are rare and small) for the duplicate-leads guardrail.
  if (lead && read.kind === 'result') outcome.leadStatus = leadSubmitStatus(JSON.parse(bytes.toString('utf8')));
}

/**
 * A reply that broke after its head went out: ended by the proxy's own upstream timer (the
 * journal says so, with the limit that ran out), or cut by anything else.
 */
export function noteBroken(outcome: Outcome, err: unknown, origin: string): void {
  if (isUpstreamTimeout(err)) {
    outcome.lost = 'proxy_timeout';
    outcome.notes.push(describeUpstreamError(err, origin).cause);
  } else outcome.lost = 'truncated';
}

/** A JSON-RPC error in a reply the proxy rewrote is the one the buyer got. */
export function noteError(outcome: Outcome, json: unknown): void {
  const error = (json as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object' && typeof (error as JsonRpcError).code === 'number') outcome.error = error as JsonRpcError;
}
