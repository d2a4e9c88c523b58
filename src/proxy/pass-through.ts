/**
 * The hot path: no effect changes this reply (a delay may have held it), so the dealer's bytes go
 * straight to the buyer through undici, with backpressure. One object per exchange receives the
 * dealer's head, chunks and end, with methods rather than a set of closures made for every request.
 */
import type { ReplyTap } from '../recording/recorder.js';
import type { Exchange } from './exchange.js';
import type { UpstreamHead, UpstreamSink } from './forward.js';
import { endToEndHeaders } from './hop-by-hop.js';
import { DealerReplyWatch } from './dealer-reply-watch.js';
import { noteBroken } from './reply-outcome.js';
import { breakConnection } from '../http/reply-connection.js';

export function passThrough(x: Exchange): Promise<void> {
  const { proxy, request, buyer } = x;
  const { forwarder } = proxy;
  return new Promise<void>((resolve) => {
    forwarder.dispatch(
      { path: forwarder.upstreamPath(request.url), method: request.httpMethod, headers: x.upstreamHeaders(), body: x.body.forward },
      (abort) => buyer.onGone(abort),
      new ReplyToBuyer(x, resolve),
    );
  });
}

/** The dealer's reply on its way to the buyer, and what the journal reads of it. */
class ReplyToBuyer implements UpstreamSink {
  private watch: DealerReplyWatch | undefined;
  private tap: ReplyTap | undefined;
  private readonly upstreamStart = performance.now();

  constructor(
    private readonly x: Exchange,
    private readonly done: () => void,
  ) {}

  /** The outcome, and the reply's watch: a JSON reply may be the dealer's own error, which the journal names. */
  onHead(head: UpstreamHead): void {
    const { x } = this;
    const { outcome, request } = x;
    const headers = endToEndHeaders(head.headers);
    const ct = headers['content-type'];
    const contentType = typeof ct === 'string' ? ct : '';
    outcome.status = outcome.upstreamStatus = head.statusCode;
    outcome.upstreamMs = performance.now() - this.upstreamStart;
    this.watch = new DealerReplyWatch(head.statusCode, contentType, request.kind === 'jsonrpc', request.skill === 'lead.submit');
    outcome.dealerCopy = x.dealerCopyFor(head.statusCode, head.headers);
    this.tap = x.tapFor(head.statusCode, headers);
    x.res.writeHead(head.statusCode, headers);
    if (contentType.startsWith('text/event-stream')) x.res.flushHeaders();
  }

  onData(chunk: Buffer): boolean {
    this.x.outcome.dealerCopy?.push(chunk);
    this.watch?.push(chunk);
    this.tap?.push(chunk);
    return this.x.res.write(chunk);
  }

  onDrain(resume: () => void): void {
    this.x.res.once('drain', resume);
  }

  onEnd(): void {
    this.x.res.end();
    this.watch?.finish(this.x.outcome);
    this.tap?.end();
    this.done();
  }

  onError(err: Error): void {
    const { res, buyer, outcome, proxy } = this.x;
    if (res.headersSent) {
      // The dealer died mid-reply, or went quiet past the proxy's timeout: the buyer sees a broken response.
      if (!buyer.gone) noteBroken(outcome, err, proxy.forwarder.origin);
      breakConnection(res, err);
    } else if (!buyer.gone) this.x.answerUnreachable(err);
    this.done();
  }
}
