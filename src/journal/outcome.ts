/**
 * A journal line's `outcome`: what the buyer can know about its request from the reply it got.
 * `result` and `error` are answers; `unknown` means the request may or may not have taken effect
 * (reset, hang, the buyer's own timeout, a truncated body, the proxy's own upstream timeout, bytes
 * that are not JSON, or a reply that is not JSON-RPC such as a gateway's HTML 502), so a retry
 * must be idempotent and back off.
 */
import type { ReplyBodyKind } from '../protocol/reply-kind.js';

export type ReplyOutcome = 'result' | 'error' | 'unknown';
export type UnknownCause = 'reset' | 'hang' | 'timeout' | 'truncated' | 'proxy_timeout' | 'malformed_json' | 'not_jsonrpc';
export const UNKNOWN_CAUSES: readonly UnknownCause[] = ['reset', 'hang', 'timeout', 'truncated', 'proxy_timeout', 'malformed_json', 'not_jsonrpc'];

/**
 * How a reply was broken on its way, when it was: reset, held or cut (by an effect, or by the
 * dealer dying mid-reply), or ended by the proxy's own upstream timer (`proxy_timeout`: the
 * dealer went quiet for longer than --upstream-timeout, or --stream-idle-timeout for a stream).
 */
export type LostReply = 'reset' | 'hang' | 'truncated' | 'proxy_timeout';

export interface OutcomeFacts {
  /** The proxy reset, held or cut the reply. */
  lost?: LostReply;
  /** The buyer went away before the reply was complete. */
  aborted: boolean;
  /** HTTP status sent (0 when none was). */
  status: number;
  /** A JSON-RPC error reached the buyer (whole body or SSE error event). */
  sawRpcError: boolean;
  /** What the body was, when the proxy read it; absent for bodies it did not need to read. */
  body?: ReplyBodyKind;
}

export function decideOutcome(facts: OutcomeFacts): { outcome: ReplyOutcome; cause?: UnknownCause } {
  if (facts.lost) return { outcome: 'unknown', cause: facts.lost };
  if (facts.aborted) return { outcome: 'unknown', cause: 'timeout' };
  if (facts.status === 0) return { outcome: 'unknown', cause: 'reset' };
  if (facts.sawRpcError) return { outcome: 'error' };
  if (facts.body === 'malformed_json' || facts.body === 'not_jsonrpc') return { outcome: 'unknown', cause: facts.body };
  return { outcome: 'result' };
}
