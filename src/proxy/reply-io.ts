/**
 * The proxy's side of one reply: what happened to it (the outcome the journal line is built from),
 * whether the buyer is still there, and how bytes are piped to it.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { JsonRpcError } from '../protocol/envelopes.js';
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

export function noteError(outcome: Outcome, json: unknown): void {
  const error = (json as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object' && typeof (error as JsonRpcError).code === 'number') outcome.error = error as JsonRpcError;
}

export async function collect(body: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c);
  return chunks;
}

/** Pipes a reply body to the buyer; a source that fails mid-way breaks the buyer's response. */
export function pipeToBuyer(stream: Readable, res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      stream.destroy();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.once('error', () => {
      res.destroy();
      resolve();
    });
    stream.once('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (!stream.readableEnded) res.destroy();
    });
    res.once('finish', resolve);
    res.once('close', resolve);
    stream.pipe(res);
  });
}
