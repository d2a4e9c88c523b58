/**
 * The proxy's side of one reply: what happened to it (the outcome the journal line is built from),
 * whether the buyer is still there, and how bytes are piped to it.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { JsonRpcError } from '../protocol/envelopes.js';
import { readRpcReplyBytes, SseErrorScanner } from '../protocol/reply-kind.js';
import type { ReplyFacts } from '../journal/facts.js';
import type { DealerReplyCopy } from './dealer-check.js';

/**
 * Watches for the buyer going away before its reply is complete. The AbortSignal that delays,
 * hangs and dealer calls need is made only when one asks for it: on the hot path an
 * AbortController costs more than everything else this class does.
 */
export class BuyerWatch {
  gone = false;
  private controller: AbortController | undefined;
  private onGoneHook: (() => void) | undefined;

  constructor(res: ServerResponse) {
    res.once('close', () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.controller?.abort();
      this.onGoneHook?.();
    });
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Runs `fn` when the buyer goes (at once if it already has). */
  onGone(fn: () => void): void {
    if (this.gone) fn();
    else this.onGoneHook = fn;
  }
}

/** What happened to one reply: the journal's facts, plus what the proxy still needs while sending. */
export interface Outcome extends ReplyFacts {
  status?: number;
  /** Chunks of a small JSON reply from the dealer, parsed only when the journal is written. */
  dealerJson?: Buffer[];
  /** With --check-dealer: what the dealer sent, bounded, checked once the reply is out. */
  dealerCopy?: DealerReplyCopy;
}

/** Whether the start of a JSON reply has an "error" member before any "result" member. */
export function looksLikeRpcError(firstChunk: Buffer): boolean {
  const head = firstChunk.length > 512 ? firstChunk.subarray(0, 512) : firstChunk;
  const error = head.indexOf('"error"');
  if (error === -1) return false;
  const result = head.indexOf('"result"');
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

  /** `rpc`: the request was JSON-RPC, so a reply that is not JSON-RPC leaves the buyer not knowing. */
  constructor(
    status: number,
    contentType: string,
    private readonly rpc: boolean,
  ) {
    this.keepAll = rpc && (status < 200 || status >= 300);
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

/**
 * Reads the dealer JSON kept by a DealerReplyWatch: its error, and for a JSON-RPC request what
 * kind of body it was.
 */
export function readDealerJson(outcome: Outcome, rpc: boolean): void {
  if (!outcome.dealerJson) return;
  const read = readRpcReplyBytes(Buffer.concat(outcome.dealerJson));
  if (read.error) outcome.error = read.error;
  else if (rpc) outcome.body = read.kind;
}

export function noteError(outcome: Outcome, json: unknown): void {
  const error = (json as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object' && typeof (error as JsonRpcError).code === 'number') outcome.error = error as JsonRpcError;
}

export async function collect(body: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c);
  return chunks;
}

/**
 * Pipes a reply body to the buyer; a source that fails mid-way breaks the buyer's response and
 * calls `onBroken` (the journal calls that reply truncated).
 */
export function pipeToBuyer(stream: Readable, res: ServerResponse, signal: AbortSignal, onBroken?: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      stream.destroy();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.once('error', () => {
      if (!signal.aborted) onBroken?.();
      res.destroy();
      resolve();
    });
    stream.once('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (!stream.readableEnded) {
        if (!signal.aborted) onBroken?.();
        res.destroy();
      }
    });
    res.once('finish', resolve);
    res.once('close', resolve);
    stream.pipe(res);
  });
}
