/**
 * `readAapError(x)`: whatever a failed call left behind — a raw JSON-RPC envelope (object or
 * text), its `error` member, an `@a2a-js/sdk` exception (its `errorResponse`, `envelopeCode` and
 * `data`, an SSE error's `cause`), an HTTP failure (`{ status, headers, body }` or a fetch
 * Response) or a transport error — read into one AapErrorReading. It never throws: what it cannot
 * find or use is listed in `notFound`.
 *
 * The exception class is never consulted: under AAP 1.3 a RATE_LIMITED arrives as
 * TaskNotCancelableError, and -32602 and -32603 share classes in some SDK versions. The numeric
 * code and the typed payload decide.
 */
import { capturedFor, type CapturedReply } from './captured-replies.js';
import { readRpcError, type HttpFacts } from './read-envelope.js';
import {
  MAX_CAUSE_DEPTH,
  MAX_JSON_CHARS,
  boundedMessage,
  isObject,
  retryAfterHeaderMs,
  typeName,
  type AapErrorReading,
  type Json,
  type NotFound,
} from './reading.js';

/** HTTP statuses after which the same request may succeed later. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501 && status !== 505) || (status >= 200 && status < 300);
}

function isRpcErrorMember(value: unknown): value is Json {
  return isObject(value) && typeof value.code === 'number' && !(value instanceof Error);
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name) return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  return undefined;
}

function transport(message: string, retryable: boolean, notFound: NotFound[], extra: Partial<AapErrorReading> = {}): AapErrorReading {
  return { kind: 'transport', retryable, message: boundedMessage(message, notFound), notFound, ...extra };
}

/** A network error code (ECONNRESET, UND_ERR_SOCKET, …) anywhere along the cause chain. */
function systemCodeOf(x: Json): string | undefined {
  let current: unknown = x;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && isObject(current); depth++) {
    const code = (current as Json).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
    current = (current as Json).cause;
  }
  return undefined;
}

/** A reply aapFetch kept: its envelope, or the HTTP facts of a body that was not one. */
function fromCapture(reply: CapturedReply, fallbackMessage: string): AapErrorReading {
  const http: HttpFacts = { status: reply.status, retryAfterMs: reply.retryAfterMs };
  if (reply.error) return readRpcError(reply.error, http);
  const why = reply.notJson ? 'the body is not JSON' : 'the body is not a JSON-RPC error';
  const extra: Partial<AapErrorReading> = { httpStatus: reply.status };
  if (reply.retryAfterMs !== undefined) extra.retryAfterMs = reply.retryAfterMs;
  return transport(fallbackMessage || `HTTP ${reply.status}: ${why}`, retryableStatus(reply.status), [{ field: 'jsonRpcCode', why }], extra);
}

/** `{ status, headers?, body? }` or a Response (whose body cannot be read synchronously). */
function readHttpFailure(o: Json): AapErrorReading {
  const status = o.status as number;
  const retryAfterMs = retryAfterHeaderMs(headerOf(o.headers, 'retry-after'));
  const http: HttpFacts = { status, retryAfterMs };
  const body = o.body;
  const parsed = typeof body === 'string' ? parseJson(body) : body;
  const error = isObject(parsed) ? parsed.error : undefined;
  if (isRpcErrorMember(error)) return readRpcError(error, http);
  const notFound: NotFound[] = [
    { field: 'jsonRpcCode', why: body === undefined || isReadableStream(body) ? 'the body was not given' : 'the body is not a JSON-RPC error' },
  ];
  const extra: Partial<AapErrorReading> = { httpStatus: status };
  if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;
  return transport(`HTTP ${status}${typeof o.statusText === 'string' && o.statusText ? ` ${o.statusText}` : ''}`, retryableStatus(status), notFound, extra);
}

function isReadableStream(value: unknown): boolean {
  return isObject(value) && typeof (value as { getReader?: unknown }).getReader === 'function';
}

function parseJson(text: string): unknown {
  if (text.length > MAX_JSON_CHARS || !/^\s*[{[]/.test(text.slice(0, 64))) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function read(x: unknown, depth: number): AapErrorReading {
  if (typeof x === 'string') {
    const parsed = parseJson(x);
    if (parsed !== undefined) return read(parsed, depth + 1);
    return transport(x, false, [{ field: 'jsonRpcCode', why: 'a string that is not a JSON-RPC envelope' }]);
  }
  if (!isObject(x)) return transport(`not an error: ${typeName(x)}`, false, [{ field: 'jsonRpcCode', why: `readAapError was given ${typeName(x)}` }]);

  const message = typeof x.message === 'string' ? x.message : '';
  const kept = capturedFor(x);
  if (kept) return fromCapture(kept, message);
  if (isObject(x.errorResponse) && isRpcErrorMember(x.errorResponse.error)) return readRpcError(x.errorResponse.error);
  if (typeof x.envelopeCode === 'number') return readRpcError({ code: x.envelopeCode, message, data: x.data });
  if (isRpcErrorMember(x.error)) return readRpcError(x.error);
  if (isRpcErrorMember(x) && 'message' in x) return readRpcError(x);

  // An SSE error event: a plain Error whose cause is the typed JSON-RPC exception.
  if (x.cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    const inner = read(x.cause, depth + 1);
    if (inner.kind !== 'transport' || inner.httpStatus !== undefined) return inner;
  }
  if (typeof x.status === 'number' && Number.isInteger(x.status) && x.status >= 100 && x.status <= 599) return readHttpFailure(x);

  // The SDK words HTTP failures as "HTTP error for SendMessage! Status: 503 Service Unavailable. Response: …".
  const notFound: NotFound[] = [{ field: 'jsonRpcCode', why: 'no JSON-RPC error reached the buyer' }];
  const status = /\bStatus: (\d{3})\b/.exec(message.slice(0, 512));
  if (status) return transport(message, retryableStatus(Number(status[1])), notFound, { httpStatus: Number(status[1]) });
  if (!(x instanceof Error) && message === '') {
    const what = 'result' in x ? 'a JSON-RPC success, not an error' : 'an object that is no error, envelope or HTTP reply';
    return transport(`not an error: ${what}`, false, [{ field: 'jsonRpcCode', why: `readAapError was given ${what}` }]);
  }
  const code = systemCodeOf(x);
  // No usable answer (reset, timeout, a reply that is not JSON-RPC): whether it took effect is
  // unknown, so it may be sent again — for a lead, with the same idempotency key.
  return transport(message || (x instanceof Error ? x.name : 'unknown failure'), true, notFound, code !== undefined ? { code } : {});
}

export function readAapError(x: unknown): AapErrorReading {
  try {
    return read(x, 0);
  } catch (e) {
    // A getter or proxy that throws: say so rather than pass the throw on.
    let why = 'reading it threw';
    try {
      why = `reading it threw: ${String((e as Error)?.message ?? e).slice(0, 200)}`;
    } catch {
      /* keep the plain reason */
    }
    return { kind: 'transport', retryable: false, message: 'unreadable error value', notFound: [{ field: 'jsonRpcCode', why }] };
  }
}
