/**
 * The pass-through fast path's dealer client: the buyer's request goes to the dealer as one write
 * on a pooled keep-alive socket, and the reply comes back with only its framing parsed, by the
 * llhttp parser node:http's own client drives (`HTTPParser` of `_http_common`, never a parser
 * written here). Its status and raw header list reach the buyer's writeHead as they are, so no
 * header object is built on the way. In the proxy it costs about 7 % less CPU per request than
 * undici's pool for the same exchanges (docs/performance.md, "The pass-through fast path").
 *
 * Used for http: dealers only, for requests whose body the proxy already holds whole; every
 * other request keeps the undici path (forward.ts). What a dealer sees, and what the journal
 * says when it fails, are kept as they are there:
 * - the request head is the one undici writes for the same request: `host` and `connection`
 *   first, the end-to-end headers in order, `content-length` last (omitted for an empty body
 *   of a method that expects none); a HEAD asks for `connection: close`, as undici does for
 *   servers that send a body anyway, and a body on a method that expects none retires the socket;
 * - the upstream timeouts are the same UpstreamTimer, started at the same moments;
 * - errors are the socket's own (ECONNREFUSED, ECONNRESET) or undici's error classes for what
 *   undici reports itself (a reply llhttp refuses, a reply head over the size limit, the dealer
 *   closing before its reply, a connect that never finished, an upgrade nobody asked for), so
 *   describeUpstreamError words them alike;
 * - a socket is reused only after a complete reply that keeps the connection alive, one
 *   event-loop turn later (a dealer that closes after all is seen first), for as long as the
 *   dealer's `Keep-Alive: timeout` allows less two seconds (undici's margin), else 30 s.
 * One difference, by design: an unsolicited 1xx reply (100 Continue, 103 Early Hints) is
 * skipped and the final reply awaited, as node:http's client does (RFC 9110 §15.2: a client
 * parses 1xx replies it did not expect); undici skips a 103 but fails on a 100.
 */
import net from 'node:net';
import { createRequire } from 'node:module';
import { errors } from 'undici';
import { connectionListed, HOP_BY_HOP } from './hop-by-hop.js';
import { UpstreamTimer } from './upstream-timer.js';

/** The part of node's llhttp binding this module drives (see lib/_http_client.js). */
interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenientFlags: number): void;
  execute(data: Buffer): number | Error;
  finish(): Error | undefined;
  close(): void;
  [callback: number]: unknown;
}

interface LlhttpParserClass {
  new (): LlhttpParser;
  RESPONSE: number;
  kOnMessageBegin: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
  kLenientNone: number;
}

/** Node's llhttp binding, or undefined on a Node that no longer exposes it (the fast path is then off). */
export const HTTPParser: LlhttpParserClass | undefined = (() => {
  try {
    const parser = (createRequire(import.meta.url)('_http_common') as { HTTPParser?: LlhttpParserClass }).HTTPParser;
    return typeof parser === 'function' && typeof parser.kOnHeadersComplete === 'number' ? parser : undefined;
  } catch {
    return undefined;
  }
})();

/** What the buyer gets of a dealer's head on the fast path. */
export interface RawHead {
  statusCode: number;
  /** The end-to-end headers as [name, value, name, value, …], as the dealer wrote them. */
  rawHeaders: string[];
  /** The one Content-Type the reply names ('' when none, or several, as on the undici path). */
  contentType: string;
}

/** Receives a dealer reply on the fast path: as UpstreamSink (forward.ts), with a raw head. */
export interface RawSink {
  onHead(head: RawHead): void;
  /** Returns false when the buyer's socket is full; the dealer's socket is then paused until onDrain. */
  onData(chunk: Buffer): boolean;
  onDrain(resume: () => void): void;
  onEnd(): void;
  onError(err: Error): void;
}

export interface RawRequest {
  /** Path and query to send upstream (already prefixed with the target's base path). */
  path: string;
  method: string;
  /** End-to-end headers with lowercase names (Exchange.upstreamHeaders); a content-length among them is recomputed. */
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

export interface RawForwarderOptions {
  /** Headers, and each gap between body chunks (--upstream-timeout); 0 waits forever. */
  timeoutMs: number;
  /** Each gap between the chunks of a text/event-stream body (--stream-idle-timeout); 0 waits forever. */
  streamIdleTimeoutMs?: number;
  connections?: number;
}

/** How long an idle socket is kept without a Keep-Alive hint from the dealer (the undici pool's setting). */
const DEFAULT_IDLE_MS = 30_000;
/** Taken off the dealer's Keep-Alive timeout, so the proxy lets a socket go before the dealer does (undici's margin). */
const KEEP_ALIVE_MARGIN_MS = 2_000;
/** The longest a dealer's Keep-Alive hint keeps a socket (undici's cap). */
const MAX_IDLE_MS = 600_000;
/** A connect attempt is bounded even when the upstream timeout is off or longer (undici's connect timeout). */
const CONNECT_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT = /timeout=(\d+)/;

/** Methods whose request may carry a body: an empty one still gets `content-length: 0` (RFC 9110 §8.6, as undici). */
function expectsPayload(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'QUERY' || method === 'PROPFIND' || method === 'PROPPATCH';
}

/**
 * The request head, byte for byte what undici writes for the same request. The header values
 * come from node:http's parser (which refuses CR, LF and NUL in them) and from the proxy's own
 * X-Forwarded-* values, so they are written without a second check.
 */
function requestHead(r: RawRequest, hostHeader: string, close: boolean): string {
  let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${hostHeader}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n`;
  const { headers } = r;
  for (const name in headers) {
    if (name === 'content-length') continue;
    const value = headers[name]!;
    if (typeof value === 'string') head += `${name}: ${value}\r\n`;
    else for (const v of value) head += `${name}: ${v}\r\n`;
  }
  const length = r.body ? r.body.length : 0;
  if (length > 0 || expectsPayload(r.method)) head += `content-length: ${length}\r\n`;
  return `${head}\r\n`;
}

/**
 * An llhttp failure, as undici reports the same failure. A head over the size limit is its
 * HeadersOverflowError. undici names a content-length mismatch whenever a whole Content-Length
 * line came before the failure: llhttp's two failures that imply one (a second Content-Length,
 * a Transfer-Encoding after one) are named so here. Anything else is its HTTPParserError, which
 * carries no code, so the journal names the class as on the undici path. One case reads
 * differently: a head that breaks for another reason after a valid Content-Length line is a
 * mismatch to undici and an HTTPParserError here (node's parser hands no header over before the
 * head is whole). The buyer gets the same 502 either way.
 */
function parseError(err: Error): Error {
  const { code, reason } = err as Error & { code?: string; reason?: string };
  if (code === 'HPE_HEADER_OVERFLOW') return new errors.HeadersOverflowError();
  if (code === 'HPE_UNEXPECTED_CONTENT_LENGTH' || code === 'HPE_INVALID_TRANSFER_ENCODING') return new errors.ResponseContentLengthMismatchError();
  return new errors.HTTPParserError(`Response does not match the HTTP/1.1 protocol (${reason ?? code ?? err.message})`);
}

/** One dealer call: a request and its reply, from dispatch until the reply ends or fails. */
class RawCall {
  /** Ended (complete, failed or cancelled): nothing more reaches the sink. */
  settled = false;
  /** The final reply's status once its head is in; 0 before (and while only 1xx replies came). */
  status = 0;
  /** The dealer's socket is paused for the buyer (backpressure). */
  paused = false;
  conn: Connection | undefined;
  readonly timer: UpstreamTimer;

  constructor(
    readonly head: string,
    readonly body: Buffer | null,
    readonly isHead: boolean,
    /** The socket is not reused after this call (a HEAD, a body on a method that expects none). */
    readonly retire: boolean,
    readonly sink: RawSink,
    timeoutMs: number,
  ) {
    this.timer = new UpstreamTimer(timeoutMs, (err) => this.fail(err));
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.timer.clear();
    // A socket in the middle of a request or a reply is never reused.
    this.conn?.socket.destroy();
    this.sink.onError(err);
  }
}

/** One keep-alive socket to the dealer and its parser, carrying one call at a time. */
class Connection {
  readonly socket: net.Socket;
  call: RawCall | undefined;
  idleSince = 0;
  /** How long this socket may wait idle before the proxy lets it go. */
  idleMs = DEFAULT_IDLE_MS;
  private readonly parser: LlhttpParser;
  /** Header lines llhttp handed over early (a head split across reads, or a large one). */
  private pending: string[] = [];
  private keepAlive = false;
  private completed = false;
  /** False once the dealer sent something no call asked for: the socket is not reused. */
  private reusable = true;
  private connectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: RawForwarder,
    host: string,
    port: number,
    timeoutMs: number,
  ) {
    const P = HTTPParser!;
    this.socket = net.connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 });
    if (timeoutMs <= 0 || timeoutMs > CONNECT_TIMEOUT_MS) {
      this.connectTimer = setTimeout(
        () =>
          this.socket.destroy(new errors.ConnectTimeoutError(`Connect Timeout Error (attempted address: ${host}:${port}, timeout: ${CONNECT_TIMEOUT_MS}ms)`)),
        CONNECT_TIMEOUT_MS,
      );
      this.connectTimer.unref();
      this.socket.once('connect', () => clearTimeout(this.connectTimer));
    }
    const parser = (this.parser = new P());
    parser.initialize(P.RESPONSE, this, 0, P.kLenientNone);
    parser[P.kOnMessageBegin] = () => {
      // A second reply after the one asked for, or bytes while idle: the dealer is out of step.
      if (!this.call || this.completed) this.reusable = false;
    };
    parser[P.kOnHeaders] = (headers: string[]) => {
      for (const h of headers) this.pending.push(h);
    };
    parser[P.kOnHeadersComplete] = (
      _major: number,
      _minor: number,
      headers: string[] | undefined,
      _method: unknown,
      _url: unknown,
      statusCode: number,
      _statusMessage: string,
      upgrade: boolean,
      keepAlive: boolean,
    ) => this.onHeadersComplete(headers, statusCode, upgrade, keepAlive);
    parser[P.kOnBody] = (chunk: Buffer) => this.onBody(chunk);
    parser[P.kOnMessageComplete] = () => this.onMessageComplete();
    this.socket.on('data', (d: Buffer) => this.onData(d));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (err) => this.onError(err));
    this.socket.on('close', () => this.onClose());
  }

  /** Writes the call's request (buffered by the socket while it still connects). */
  start(call: RawCall): void {
    this.call = call;
    call.conn = this;
    this.completed = false;
    this.socket.ref();
    if (call.body && call.body.length > 0) {
      this.socket.cork();
      this.socket.write(call.head, 'latin1');
      this.socket.write(call.body);
      this.socket.uncork();
    } else this.socket.write(call.head, 'latin1');
  }

  /** Waits idle in the pool: it does not keep the process alive. */
  park(): void {
    this.idleSince = performance.now();
    this.socket.unref();
  }

  private onHeadersComplete(headers: string[] | undefined, statusCode: number, upgrade: boolean, keepAlive: boolean): number {
    const raw = headers ?? this.pending;
    this.pending = [];
    const call = this.call;
    if (!call || call.settled || this.completed) {
      this.reusable = false;
      return 1;
    }
    if (upgrade) {
      // A 101 to a request that asked for no upgrade: the dealer's bytes are another protocol now.
      call.fail(new errors.SocketError('bad upgrade'));
      return 1;
    }
    // An informational reply (100, 102, 103): skipped; the final one follows on the same socket.
    if (statusCode < 200) return 1;
    call.status = statusCode;
    this.keepAlive = keepAlive && !call.retire;
    const { rawHeaders, contentType, typeForTimer, keepAliveHint } = endToEndHead(raw);
    if (this.keepAlive) {
      const hinted = keepAliveHint ? KEEP_ALIVE_TIMEOUT.exec(keepAliveHint) : null;
      if (hinted) {
        this.idleMs = Math.min(Number.parseInt(hinted[1]!, 10) * 1000 - KEEP_ALIVE_MARGIN_MS, MAX_IDLE_MS);
        if (this.idleMs <= 0) this.keepAlive = false;
      } else this.idleMs = DEFAULT_IDLE_MS;
    }
    if (typeForTimer !== undefined && typeForTimer.trimStart().toLowerCase().startsWith('text/event-stream'))
      call.timer.timeStreamGaps(this.pool.streamIdleTimeoutMs);
    call.timer.armBody();
    call.sink.onHead({ statusCode, rawHeaders, contentType });
    // No body follows a HEAD's reply or a 304, whatever its headers say (lib/_http_client.js does the same).
    return call.isHead || statusCode === 304 ? 1 : 0;
  }

  private onBody(chunk: Buffer): void {
    const call = this.call;
    if (!call || call.settled || call.status === 0) return;
    // A slow buyer is not a slow dealer: no timeout while the dealer is paused for it.
    if (!call.paused) call.timer.armBody();
    if (!call.sink.onData(chunk) && !call.paused) {
      call.paused = true;
      call.timer.clear();
      this.socket.pause();
      call.sink.onDrain(() => {
        if (call.settled) return;
        call.paused = false;
        call.timer.armBody();
        this.socket.resume();
      });
    }
  }

  private onMessageComplete(): void {
    // Trailers (llhttp hands them over like early headers) are not forwarded, as on the undici path.
    this.pending = [];
    const call = this.call;
    // The end of a 1xx reply: the final one is still to come.
    if (!call || call.settled || call.status === 0) return;
    this.completed = true;
    call.settled = true;
    call.timer.clear();
    call.sink.onEnd();
  }

  private onData(d: Buffer): void {
    const call = this.call;
    if (!call || call.settled) {
      // Bytes no call asked for (on an idle socket, or after a reply that failed).
      this.socket.destroy();
      return;
    }
    let ret: number | Error;
    try {
      ret = this.parser.execute(d);
    } catch (err) {
      // Thrown by the sink (writeHead refusing what the dealer sent), as undici reports it.
      this.socket.destroy();
      call.fail(err as Error);
      return;
    }
    if (ret instanceof Error) {
      this.socket.destroy();
      call.fail(parseError(ret));
      return;
    }
    if (this.completed) this.afterReply();
  }

  /** The reply is complete: the socket goes back to the pool, or is closed. */
  private afterReply(): void {
    const call = this.call!;
    this.call = undefined;
    call.conn = undefined;
    this.completed = false;
    // Reused only when the dealer keeps it alive, nothing unexpected came, and the request was
    // written whole (a reply that came before its request body was out leaves the socket mid-request).
    if (!this.keepAlive || !this.reusable || this.socket.destroyed || this.socket.writableLength > 0) {
      this.socket.destroy();
      return;
    }
    // The last chunk may have filled the buyer's socket: the reply is complete, so the dealer's
    // socket is read again whatever the buyer's state (paused, the next reply on it would never be read).
    if (call.paused) this.socket.resume();
    // One event-loop turn first: a dealer that closes after all, though it said keep-alive, is seen before reuse.
    setImmediate(() => this.pool.release(this));
  }

  private onEnd(): void {
    const call = this.call;
    if (call && !call.settled) {
      if (call.status !== 0 && !this.keepAlive) {
        // A body delimited by the close: the end completes it (or shows it cut short).
        const err = this.parser.finish();
        if (err) call.fail(parseError(err));
        else if (!call.settled) call.fail(new errors.SocketError('other side closed'));
      } else call.fail(new errors.SocketError('other side closed'));
    }
    this.socket.destroy();
  }

  private onError(err: Error): void {
    const call = this.call;
    if (call && !call.settled) call.fail(err);
    this.socket.destroy();
  }

  private onClose(): void {
    clearTimeout(this.connectTimer);
    const call = this.call;
    this.call = undefined;
    if (call && !call.settled) call.fail(new errors.SocketError('closed'));
    this.parser.close();
    this.pool.closed(this);
  }
}

/**
 * The end-to-end part of a dealer's raw header list, and what the proxy reads of it: the one
 * Content-Type (for the reply watch; none when the Connection header names it, as
 * endToEndHeaders drops it), the same before that filter (what the timer decides SSE gaps on,
 * as forward.ts reads the dealer's headers), and the Keep-Alive hint.
 */
function endToEndHead(raw: string[]): { rawHeaders: string[]; contentType: string; typeForTimer: string | undefined; keepAliveHint: string | undefined } {
  let connection: string | undefined;
  let keepAliveHint: string | undefined;
  let typeForTimer: string | undefined;
  let types = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // Compared by length first: most names are neither, and lowercasing every one costs.
    if (name.length === 10) {
      const lower = name.toLowerCase();
      if (lower === 'connection') connection = connection === undefined ? raw[i + 1]! : `${connection},${raw[i + 1]!}`;
      else if (lower === 'keep-alive') keepAliveHint = (keepAliveHint ?? '') + raw[i + 1]!;
    } else if (name.length === 12 && name.toLowerCase() === 'content-type') {
      typeForTimer = raw[i + 1]!;
      types++;
    }
  }
  // Named twice, a header is a list to the undici path, whose readers then see no content type.
  if (types !== 1) typeForTimer = undefined;
  const listed = connectionListed(connection);
  const rawHeaders: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed?.has(lower)) continue;
    rawHeaders.push(raw[i]!, raw[i + 1]!);
  }
  const contentType = typeForTimer !== undefined && !listed?.has('content-type') ? typeForTimer : '';
  return { rawHeaders, contentType, typeForTimer, keepAliveHint };
}

export class RawForwarder {
  readonly origin: string;
  readonly streamIdleTimeoutMs: number;
  private readonly host: string;
  private readonly port: number;
  private readonly hostHeader: string;
  private readonly timeoutMs: number;
  private readonly maxConnections: number;
  /** Every open socket, busy or idle. */
  private readonly conns = new Set<Connection>();
  /** Idle sockets, most recently used last (taken first: the least likely to have timed out). */
  private readonly idle: Connection[] = [];
  /** Calls waiting for a socket while all `connections` are busy, oldest first. */
  private waiting: RawCall[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private destroyed = false;

  constructor(target: string, opts: RawForwarderOptions) {
    const url = new URL(target);
    if (url.protocol !== 'http:') throw new Error(`the fast path forwards to http: dealers only, not ${url.protocol}`);
    this.origin = url.origin;
    // url.hostname keeps an IPv6 address's brackets, which net.connect does not take.
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port || 80);
    this.hostHeader = url.host;
    this.timeoutMs = opts.timeoutMs;
    this.streamIdleTimeoutMs = opts.streamIdleTimeoutMs ?? 0;
    this.maxConnections = opts.connections ?? 256;
  }

  /**
   * Sends a request and hands the dealer's reply to `sink` chunk by chunk, with backpressure (a
   * slow buyer pauses the dealer's socket). `onCancel` receives the function that cancels the
   * call at once; its socket is closed, never reused.
   */
  dispatch(r: RawRequest, onCancel: (abort: () => void) => void, sink: RawSink): void {
    const retire = r.method === 'HEAD';
    const call = new RawCall(
      requestHead(r, this.hostHeader, retire),
      r.body,
      r.method === 'HEAD',
      retire || (r.body !== null && r.body.length > 0 && !expectsPayload(r.method)),
      sink,
      this.timeoutMs,
    );
    onCancel(() => call.fail(new Error('buyer disconnected')));
    if (call.settled) return;
    if (this.destroyed) {
      call.fail(new errors.ClientDestroyedError());
      return;
    }
    call.timer.arm('UND_ERR_HEADERS_TIMEOUT');
    const conn = this.takeIdle();
    if (conn) conn.start(call);
    else if (this.conns.size < this.maxConnections) this.connect().start(call);
    else this.waiting.push(call);
  }

  /** Called by a connection once its reply is complete and it may carry another call. */
  release(conn: Connection): void {
    if (conn.socket.destroyed) return;
    if (this.destroyed) {
      conn.socket.destroy();
      return;
    }
    const next = this.nextWaiting();
    if (next) {
      conn.start(next);
      return;
    }
    conn.park();
    this.idle.push(conn);
    this.sweeper ??= setInterval(() => this.sweep(), 1_000).unref();
  }

  /** Called by a connection once its socket has closed. */
  closed(conn: Connection): void {
    this.conns.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i !== -1) this.idle.splice(i, 1);
    if (this.destroyed) return;
    // A slot is free: the oldest waiting call gets a new socket.
    const next = this.nextWaiting();
    if (next) this.connect().start(next);
  }

  /** Closes every socket at once; calls in flight fail as their sockets close. */
  destroy(): Promise<void> {
    this.destroyed = true;
    clearInterval(this.sweeper);
    for (const call of this.waiting) call.fail(new errors.ClientDestroyedError());
    this.waiting = [];
    for (const conn of this.conns) conn.socket.destroy();
    return Promise.resolve();
  }

  private connect(): Connection {
    const conn = new Connection(this, this.host, this.port, this.timeoutMs);
    this.conns.add(conn);
    return conn;
  }

  private takeIdle(): Connection | undefined {
    const now = performance.now();
    for (let conn = this.idle.pop(); conn; conn = this.idle.pop()) {
      if (now - conn.idleSince < conn.idleMs && !conn.socket.destroyed) return conn;
      conn.socket.destroy();
    }
    return undefined;
  }

  private nextWaiting(): RawCall | undefined {
    while (this.waiting.length > 0) {
      const call = this.waiting.shift()!;
      if (!call.settled) return call;
    }
    return undefined;
  }

  /** Lets idle sockets go once past their time (a socket taken from the pool is checked again then). */
  private sweep(): void {
    const now = performance.now();
    for (const conn of [...this.idle]) if (now - conn.idleSince >= conn.idleMs) conn.socket.destroy();
    if (this.idle.length === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
