/**
 * The forwarding engine: one undici Pool per target with keep-alive connections.
 * Chosen by measurement (README, "Forwarding engine"): undici's pool forwarded at about twice the
 * rate of http-proxy on the same machine, and its dispatch() API hands the dealer's bytes
 * straight to the buyer's response without an intermediate stream.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Pool } from 'undici';

/** Hop-by-hop headers (RFC 9110 §7.6.1) never cross the proxy; undici also refuses most of them. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'http2-settings',
]);

function connectionListed(value: string | string[] | undefined): Set<string> | undefined {
  // The usual values name only hop-by-hop headers that are dropped anyway.
  if (!value || value === 'keep-alive' || value === 'close') return undefined;
  const names = (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return names.length ? new Set(names) : undefined;
}

/** Copies end-to-end headers only: drops hop-by-hop ones and those named in `Connection`. */
export function endToEndHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const listed = connectionListed(headers['connection']);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  return out;
}

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

type UpstreamTimeoutCode = 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT' | 'STREAM_IDLE_TIMEOUT';

/**
 * The proxy's own timer ended the wait for the dealer: named like undici's timeouts, so
 * describeUpstreamError words them alike, and told apart from a dealer that broke its reply.
 */
export class UpstreamTimeoutError extends Error {
  override name = 'UpstreamTimeoutError';
  constructor(
    readonly code: UpstreamTimeoutCode,
    readonly ms: number,
  ) {
    super(
      code === 'UND_ERR_HEADERS_TIMEOUT'
        ? `no reply headers from the dealer within ${ms} ms`
        : code === 'UND_ERR_BODY_TIMEOUT'
          ? `no body data from the dealer within ${ms} ms`
          : `no event from the dealer's stream within ${ms} ms`,
    );
  }
}

/** True when the proxy's own upstream timer (not the dealer, not the buyer) ended a reply. */
export function isUpstreamTimeout(err: unknown): err is UpstreamTimeoutError {
  return err instanceof UpstreamTimeoutError;
}

/**
 * The upstream timeout, kept by a plain timer: undici checks its own timeouts on a coarse clock
 * (a 100 ms timeout fired after about a second), so its timeouts are off and this one is exact.
 * A limit of `0` disables a wait.
 */
class UpstreamTimer {
  private timer: NodeJS.Timeout | undefined;
  /** What the wait in progress is for: the error a timeout names. */
  private code: UpstreamTimeoutCode = 'UND_ERR_HEADERS_TIMEOUT';
  constructor(
    /** The limit of the wait in progress. */
    private ms: number,
    private readonly onTimeout: (err: Error) => void,
  ) {}

  /**
   * (Re)starts the wait for headers or for the next body chunk. A running wait is restarted in
   * place (refresh): one timer per request, not one per chunk.
   */
  arm(code: UpstreamTimeoutCode): void {
    if (this.ms <= 0) return;
    this.code = code;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => this.onTimeout(new UpstreamTimeoutError(this.code, this.ms)), this.ms);
    this.timer.unref();
  }

  /**
   * From now on the gaps of an event stream are timed against `idleMs` instead: a quiet stream
   * (a task waiting for input) is not a dealer that stopped answering.
   */
  timeStreamGaps(idleMs: number): void {
    this.clear();
    this.ms = idleMs;
    this.code = 'STREAM_IDLE_TIMEOUT';
  }

  /** The wait for the next body chunk, whichever limit applies to this body. */
  armBody(): void {
    this.arm(this.code === 'STREAM_IDLE_TIMEOUT' ? 'STREAM_IDLE_TIMEOUT' : 'UND_ERR_BODY_TIMEOUT');
  }

  clear(): void {
    clearTimeout(this.timer);
    // A cleared timer cannot be refreshed: the next wait starts a new one.
    this.timer = undefined;
  }
}

/** Whether a reply's content type is an event stream (SSE), whose gaps follow --stream-idle-timeout. */
function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.trimStart().toLowerCase().startsWith('text/event-stream');
}

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
