/**
 * Reads just enough of a dealer reply, while it streams to the buyer, for the journal's outcome.
 */
import { SseErrorScanner } from '../protocol/reply-kind.js';
import type { Outcome } from './reply-outcome.js';

/** The member names looked for, as bytes once: a string needle is encoded again on every search. */
const ERROR_KEY = Buffer.from('"error"');
const RESULT_KEY = Buffer.from('"result"');

/** Whether the start of a JSON reply has an "error" member before any "result" member. */
export function looksLikeRpcError(firstChunk: Buffer): boolean {
  const head = firstChunk.length > 512 ? firstChunk.subarray(0, 512) : firstChunk;
  const error = head.indexOf(ERROR_KEY);
  if (error === -1) return false;
  const result = head.indexOf(RESULT_KEY);
  return result === -1 || error < result;
}

/** Largest dealer JSON body kept to read its error; larger bodies are not parsed. */
const MAX_SNIFFED_JSON = 65_536;

/**
 * Reads just enough of a dealer reply to a JSON-RPC request, while it streams to the buyer, for
 * the journal's outcome: a JSON body that may be an error (one that names "error" first, or any
 * non-2xx one), error events in an SSE stream, and whether the reply is JSON-RPC at all.
 * A 2xx JSON success is never copied or parsed.
 */
export class DealerReplyWatch {
  private json: Buffer[] | undefined;
  private jsonSize = 0;
  private readonly keepAll: boolean;
  private sse: SseErrorScanner | undefined;
  private notRpc = false;
  private bytes = 0;

  /**
   * `rpc`: the request was JSON-RPC, so a reply that is not JSON-RPC leaves the buyer not knowing.
   * `keepSuccess`: keep a success too (lead.submit, whose status the journal records).
   */
  constructor(
    status: number,
    contentType: string,
    private readonly rpc: boolean,
    keepSuccess = false,
  ) {
    this.keepAll = (rpc && (status < 200 || status >= 300)) || keepSuccess;
    if (contentType.includes('json')) this.json = [];
    else if (contentType.startsWith('text/event-stream')) this.sse = new SseErrorScanner();
    else this.notRpc = true;
  }

  push(chunk: Buffer): void {
    if (this.json) {
      // Decided on the first chunk: a JSON-RPC reply names "error" before "result" only when it is an error.
      if (this.bytes === 0 && !this.keepAll && !looksLikeRpcError(chunk)) this.json = undefined;
      else if ((this.jsonSize += chunk.length) <= MAX_SNIFFED_JSON) this.json.push(chunk);
    } else this.sse?.push(chunk);
    this.bytes += chunk.length;
  }

  /** Writes what was seen into the outcome once the reply has ended. */
  finish(outcome: Outcome): void {
    if (this.notRpc || this.bytes === 0) {
      if (this.rpc) outcome.body = 'not_jsonrpc';
    } else if (this.json) {
      if (this.jsonSize <= MAX_SNIFFED_JSON) outcome.dealerJson = this.json;
      else if (this.rpc) outcome.body = 'not_jsonrpc';
    } else if (this.sse?.lastError) {
      outcome.error = this.sse.lastError;
      outcome.errorInStream = true;
    }
  }
}
