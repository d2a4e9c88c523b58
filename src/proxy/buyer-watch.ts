/**
 * The buyer's side of one reply: whether it is still there, and how bytes are piped to it.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

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
