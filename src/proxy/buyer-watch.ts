/**
 * The buyer's side of one reply: whether it is still there, and how bytes are piped to it.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { breakConnection } from '../http/reply-connection.js';

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

/**
 * Pipes a reply body to the buyer; a source that fails mid-way breaks the buyer's response and
 * calls `onBroken` with the failure, when there is one (the journal says how the reply was lost).
 */
export function pipeToBuyer(stream: Readable, res: ServerResponse, signal: AbortSignal, onBroken?: (err?: Error) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    // Told once, with the failure when there is one ('error' comes before 'close').
    let told = false;
    const broken = (err?: Error) => {
      if (told || signal.aborted) return;
      told = true;
      onBroken?.(err);
    };
    const onAbort = () => {
      stream.destroy();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.once('error', (err) => {
      broken(err);
      breakConnection(res);
      resolve();
    });
    stream.once('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (!stream.readableEnded) {
        broken();
        breakConnection(res);
      }
    });
    res.once('finish', resolve);
    res.once('close', resolve);
    stream.pipe(res);
  });
}
