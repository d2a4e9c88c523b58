/**
 * The hot path: no effect changes this reply (a delay may have held it), so the dealer's bytes go
 * straight to the buyer, through the fast path when it can take the exchange and through undici
 * otherwise. What both clients hand over (the head, each chunk, the end or a failure) is received
 * by one object per exchange, with methods rather than a set of closures made for every request.
 */
import type { ReplyTap } from '../recording/recorder.js';
import type { Exchange } from './exchange.js';
import type { UpstreamHead, UpstreamSink } from './forward.js';
import type { RawHead, RawSink } from './raw-forward.js';
import { endToEndHeaders } from './hop-by-hop.js';
import { DealerReplyWatch } from './dealer-reply-watch.js';
import { noteBroken } from './reply-outcome.js';

export function passThrough(x: Exchange): Promise<void> {
  const { proxy, request, buyer } = x;
  const { forwarder, rawForwarder } = proxy;
  const body = x.body.forward;
  const path = forwarder.upstreamPath(request.url);
  return new Promise<void>((resolve) => {
    const onGone = (abort: () => void) => buyer.onGone(abort);
    // The fast path needs the body whole (an oversized one streams) and no upgrade asked for.
    if (rawForwarder && (body === null || Buffer.isBuffer(body)) && request.headers.upgrade === undefined) {
      rawForwarder.dispatch({ path, method: request.httpMethod, headers: x.upstreamHeaders(), body }, onGone, new RawReplyToBuyer(x, resolve));
    } else {
      forwarder.dispatch({ path, method: request.httpMethod, headers: x.upstreamHeaders(), body }, onGone, new UndiciReplyToBuyer(x, resolve));
    }
  });
}

/** What either client does with the dealer's reply once its head is in: the bytes to the buyer, and what the journal reads of them. */
abstract class ReplyToBuyer {
  protected watch: DealerReplyWatch | undefined;
  protected tap: ReplyTap | undefined;
  private readonly upstreamStart = performance.now();

  constructor(
    protected readonly x: Exchange,
    private readonly done: () => void,
  ) {}

  /** The outcome, and the reply's watch: a JSON reply may be the dealer's own error, which the journal names. */
  protected begin(status: number, contentType: string): void {
    const { outcome, request } = this.x;
    outcome.status = outcome.upstreamStatus = status;
    outcome.upstreamMs = performance.now() - this.upstreamStart;
    this.watch = new DealerReplyWatch(status, contentType, request.kind === 'jsonrpc', request.skill === 'lead.submit');
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
      res.destroy(err);
    } else if (!buyer.gone) this.x.answerUnreachable(err);
    this.done();
  }
}

/** The fast path's reply: the dealer's raw header list as it came (less hop-by-hop headers), no header object built. */
class RawReplyToBuyer extends ReplyToBuyer implements RawSink {
  onHead(head: RawHead): void {
    this.begin(head.statusCode, head.contentType);
    this.x.res.writeHead(head.statusCode, head.rawHeaders);
    if (head.contentType.startsWith('text/event-stream')) this.x.res.flushHeaders();
  }
}

/** undici's reply, for what the fast path does not take (TLS dealers, recordings, spans, the conformance copy). */
class UndiciReplyToBuyer extends ReplyToBuyer implements UpstreamSink {
  onHead(head: UpstreamHead): void {
    const x = this.x;
    const headers = endToEndHeaders(head.headers);
    const ct = headers['content-type'];
    this.begin(head.statusCode, typeof ct === 'string' ? ct : '');
    x.outcome.dealerCopy = x.dealerCopyFor(head.statusCode, head.headers);
    this.tap = x.tapFor(head.statusCode, headers);
    x.res.writeHead(head.statusCode, headers);
    if (typeof ct === 'string' && ct.startsWith('text/event-stream')) x.res.flushHeaders();
  }
}
