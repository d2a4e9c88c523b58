/**
 * What `readAapError` hands back: one value for every way a call can fail, whichever profile the
 * dealer speaks and whatever the SDK kept. Also the bounds every reader here holds to: outside
 * input is never trusted to be small.
 */

/** `aap`: a typed AAP error (payload or AAP ErrorInfo); `a2a`: an A2A or JSON-RPC protocol error; `transport`: no usable JSON-RPC error at all. */
export type AapErrorKind = 'aap' | 'a2a' | 'transport';

/** One validation failure, as in `details.errors[]` (JSON Schema output unit). */
export interface FieldError {
  /** JSON Pointer to the failing field of the request data. */
  instanceLocation: string;
  /** The violated constraint (`type`, `required`, …); empty when the dealer did not say. */
  keyword: string;
  error: string;
}

/** Something the reader looked for and could not use, and why. */
export interface NotFound {
  field: string;
  why: string;
}

export interface AapErrorReading {
  kind: AapErrorKind;
  /** The JSON-RPC `error.code`. */
  jsonRpcCode?: number;
  /** The AAP code (payload, else AAP ErrorInfo), else the A2A reason, else a network error code such as ECONNRESET. */
  code?: string;
  /** Whether the same request may be sent again: the dealer's own value first, then the table default. */
  retryable: boolean;
  /** The dealer's retry hint, in ms. */
  retryAfterMs?: number;
  /** Every validation failure the dealer listed. */
  errors?: FieldError[];
  /** The extension a -32008 asks for. */
  extensionUri?: string;
  /** The header to activate it in (`A2A-Extensions`). */
  requiredHeader?: string;
  errorId?: string;
  /** Human message (bounded; see MAX_MESSAGE_CHARS). */
  message: string;
  /** The HTTP status, when the reply that carried the error is known. */
  httpStatus?: number;
  /** What could not be found or read, so "absent" is never silent. */
  notFound: NotFound[];
}

/** Longer messages are cut: a buyer logs them, and a dealer may send megabytes. */
export const MAX_MESSAGE_CHARS = 4000;
/** `error.data` entries read; the contract has three, a hostile array may have millions. */
export const MAX_ENTRIES = 64;
/** `details.errors[]` entries read. */
export const MAX_FIELD_ERRORS = 1000;
/** JSON text the reader parses itself (a string handed to readAapError). */
export const MAX_JSON_CHARS = 4 * 1024 * 1024;
/** How deep `cause` chains are followed. */
export const MAX_CAUSE_DEPTH = 4;

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A bounded message; a cut one says so in `notFound`. */
export function boundedMessage(text: string, notFound: NotFound[]): string {
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  notFound.push({ field: 'message', why: `cut to ${MAX_MESSAGE_CHARS} of ${text.length} characters` });
  return `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/**
 * A non-negative, finite number of milliseconds, rounded up; anything else is no hint. A hint past
 * what a number of milliseconds can hold (`retry_after_seconds: 1e308` is Infinity once scaled) is
 * read as the longest safe integer: still "wait longer than anyone will", never Infinity, which a
 * timer would read as "at once".
 */
export function hintMs(value: unknown, scale = 1): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  return Math.min(Math.ceil(value * scale), Number.MAX_SAFE_INTEGER);
}

/** An HTTP `Retry-After` value (delta-seconds or an HTTP date) in ms from `now`. */
export function retryAfterHeaderMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (text.length > 64) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** The type of a value in words, for a `why`. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
