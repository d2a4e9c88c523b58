/**
 * The forwarding engine: one undici Pool per target with keep-alive connections.
 * Chosen by measurement (README, "Forwarding engine"): undici's pool forwarded at about twice the
 * rate of http-proxy on the same machine, and its dispatch() API hands the dealer's bytes
 * straight to the buyer's response without an intermediate stream.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { isEventStream, UpstreamTimer, type UpstreamTimeoutError } from './upstream-timer.js';

export interface UpstreamRequest {
  /** Path and query to send upstream (already prefixed with the target's base path). */
  path: string;
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | Readable | null;
}

export interface UpstreamHead {
  statusCode: number;
  headers: Record<string, string | string[]>;
}

export interface UpstreamResponse extends UpstreamHead {
  body: Readable;
}

/** Receives a dealer reply on the pass-through path. */
export interface UpstreamSink {
  onHead(head: UpstreamHead): void;
  /** Returns false when the buyer's socket is full; the dealer's socket is then paused until onDrain. */
  onData(chunk: Buffer): boolean;
  onDrain(resume: () => void): void;
  onEnd(): void;
  onError(err: Error): void;
}

/** How an https:// dealer's certificate is checked. */
export interface DealerTls {
  /** PEM certificate(s) trusted in addition to the system's (--ca FILE). */
  ca?: string;
  /** Accept any certificate (--insecure); for a staging dealer with a self-signed one. */
  insecure?: boolean;
}

/** TLS verification failures a user fixes with --ca or --insecure. */
const CERT_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface ForwarderOptions {
  /** Headers, and each gap between body chunks (--upstream-timeout); 0 waits forever. */
  timeoutMs: number;
  /** Each gap between the chunks of a text/event-stream body (--stream-idle-timeout); 0 (default) waits forever. */
  streamIdleTimeoutMs?: number;
  connections?: number;
  tls?: DealerTls;
}

export class Forwarder {
  readonly origin: string;
  /** The target's base path without a trailing slash ('' for none). */
  readonly basePath: string;
  private readonly pool: Pool;
  private readonly timeoutMs: number;
  private readonly streamIdleTimeoutMs: number;

  constructor(target: string, opts: ForwarderOptions) {
    const url = new URL(target);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs;
    this.streamIdleTimeoutMs = opts.streamIdleTimeoutMs ?? 0;
    this.pool = new Pool(this.origin, {
      connections: opts.connections ?? 256,
      keepAliveTimeout: 30_000,
      // Kept by UpstreamTimer instead (exact); a connect attempt is still bounded when there is none.
      headersTimeout: 0,
      bodyTimeout: 0,
      connectTimeout: opts.timeoutMs > 0 ? Math.min(opts.timeoutMs, 10_000) : 10_000,
      ...(opts.tls && (opts.tls.ca || opts.tls.insecure)
        ? { connect: { ...(opts.tls.ca ? { ca: opts.tls.ca } : {}), rejectUnauthorized: !opts.tls.insecure } }
        : {}),
    });
  }

  upstreamPath(buyerUrl: string): string {
    return this.basePath + buyerUrl;
  }

  /**
   * Sends a request and returns the dealer's head and its body as a stream (for replies that
   * effects rewrite). Built on dispatch(), so both paths keep the same timers and backpressure:
   * the dealer's socket is paused while the body's reader is behind.
   */
  request(r: UpstreamRequest & { signal: AbortSignal }): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      let body: Readable | undefined;
      let resume: (() => void) | undefined;
      let cancel: (() => void) | undefined;
      let settled = false;
      const cancelOnAbort = (abort: () => void) => {
        cancel = abort;
        if (r.signal.aborted) abort();
        else r.signal.addEventListener('abort', abort, { once: true });
      };
      this.dispatch(r, cancelOnAbort, {
        onHead: (head) => {
          body = new Readable({
            read() {
              const go = resume;
              resume = undefined;
              go?.();
            },
            // A reader that stops early (a cut, a buyer gone) lets the dealer's request go too.
            destroy(err, callback) {
              if (!settled) cancel?.();
              callback(err);
            },
          });
          resolve({ ...head, body });
        },
        onData: (chunk) => body!.push(chunk),
        onDrain: (go) => (resume = go),
        onEnd: () => {
          settled = true;
          body!.push(null);
        },
        onError: (err) => {
          settled = true;
          if (body) body.destroy(err);
          else reject(err);
        },
      });
    });
  }

  /**
   * The pass-through path: sends a request and hands the dealer's reply to `sink` chunk by chunk,
   * with backpressure (a slow buyer pauses the dealer's socket). `onCancel` receives the function
   * that cancels the upstream request at once.
   */
  dispatch(r: UpstreamRequest, onCancel: (abort: () => void) => void, sink: UpstreamSink): void {
    let controller: { abort(reason: Error): void } | undefined;
    let cancelled: Error | undefined;
    const cancel = (reason: Error) => {
      cancelled = reason;
      controller?.abort(reason);
    };
    onCancel(() => cancel(new Error('buyer disconnected')));
    const timer = new UpstreamTimer(this.timeoutMs, cancel);
    timer.arm('UND_ERR_HEADERS_TIMEOUT');
    this.pool.dispatch(
      {
        path: r.path,
        method: r.method,
        headers: r.headers,
        body: r.body ?? null,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (cancelled) c.abort(cancelled);
        },
        onResponseStart: (_c, statusCode, headers) => {
          if (statusCode < 200) return;
          const replyHeaders = headers as Record<string, string | string[]>;
          if (isEventStream(replyHeaders)) timer.timeStreamGaps(this.streamIdleTimeoutMs);
          timer.armBody();
          sink.onHead({ statusCode, headers: replyHeaders });
        },
        onResponseData(c, chunk) {
          timer.armBody();
          if (!sink.onData(chunk)) {
            // A slow buyer is not a slow dealer: no timeout while the dealer is paused for it.
            timer.clear();
            c.pause();
            sink.onDrain(() => {
              timer.armBody();
              c.resume();
            });
          }
        },
        onResponseEnd() {
          timer.clear();
          sink.onEnd();
        },
        onResponseError(_c, err) {
          timer.clear();
          sink.onError(err);
        },
      },
    );
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}

/** Names the cause of an upstream failure in words a buyer's developer can act on. */
export function describeUpstreamError(err: unknown, origin: string): { cause: string; code: string } {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code ?? e?.name ?? 'UNKNOWN';
  if (CERT_ERRORS.has(code))
    return {
      code,
      cause: `the TLS certificate of ${origin} is not trusted (${code}): pass --ca FILE with the dealer's CA certificate (PEM), or --insecure to skip verification for this staging dealer`,
    };
  switch (code) {
    case 'ECONNREFUSED':
      return { code, cause: `connection refused by ${origin} (ECONNREFUSED)` };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return { code, cause: `connection to ${origin} was reset before a reply arrived (ECONNRESET)` };
    case 'STREAM_IDLE_TIMEOUT':
      return {
        code: 'TIMEOUT',
        cause: `${origin} sent no event on its stream within --stream-idle-timeout (${(err as UpstreamTimeoutError).ms} ms); aap-chaos ended the stream`,
      };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'TIMEOUT', cause: `${origin} did not answer within the upstream timeout (${code})` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { code, cause: `the dealer host of ${origin} could not be resolved (${code})` };
    default:
      return { code, cause: `${origin} could not be reached (${code})` };
  }
}

export type { OutgoingHttpHeaders };
