/**
 * Time limits every listener (proxy, mock dealer, admin API) puts on a client sending its request,
 * so a stalled or trickling client holds a socket for seconds, not Node's default of about five
 * minutes; and the one answer each gets when it runs out of time or sends something unparsable.
 */
import type { ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { buildRequestRefused } from '../protocol/envelopes.js';

/** Time from connection (or the previous reply) until the request's headers are complete. */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;
/** Time after the headers for the whole body to arrive. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export interface ListenerTimeouts {
  headerTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** http.createServer options that enforce the timeouts. */
export function listenerOptions(t: ListenerTimeouts = {}): ServerOptions {
  const header = t.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS;
  const body = t.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  return {
    headersTimeout: header,
    requestTimeout: header + body,
    // Node checks the limits on this interval (30 s by default), which would stretch them.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(header, body) / 4))),
  };
}

/** The message a buyer out of time gets, also the journal's note for it. */
export const TIMED_OUT_MESSAGE = 'the request was not received in time (--header-timeout / --body-timeout)';

/** Sockets answered 408, so a request handler still reading the body knows why it ended. */
const timedOut = new WeakSet<Duplex>();

/** Whether the connection of a request was cut off by the header or body timeout. */
export function wasTimedOut(socket: Duplex | null): boolean {
  return socket !== null && timedOut.has(socket);
}

/**
 * The server's `clientError` handler: a client out of time gets 408, oversized headers 431,
 * anything unparsable 400, each with a JSON-RPC error naming why, and the connection closes. A
 * reply already under way cannot be replaced, so its connection is only closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (!socket.writable || started) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', TIMED_OUT_MESSAGE]
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are larger than the server accepts']
        : [400, 'Bad Request', `the request is not valid HTTP (${err.code ?? 'parse error'})`];
  if (status === 408) timedOut.add(socket);
  const body = JSON.stringify(buildRequestRefused(message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
