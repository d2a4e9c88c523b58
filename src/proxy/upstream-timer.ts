/**
 * The proxy's own clock on a dealer call: how long it waits for the dealer's headers, for each
 * body chunk and for each event of a stream, and the error that names the wait that ran out.
 * Shared by both forwarders, so a timeout reads the same whichever one carried the request.
 */

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
export class UpstreamTimer {
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
export function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.trimStart().toLowerCase().startsWith('text/event-stream');
}
