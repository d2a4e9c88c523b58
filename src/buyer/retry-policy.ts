/**
 * `retryPolicy(options)`: from one AapErrorReading, what the buyer does next —
 *
 * - `retry` after `afterMs`: the dealer's retry hint when it gave one, else exponential backoff
 *   (`baseDelayMs`·2^(attempt-1), capped at `maxDelayMs`) with jitter; a lead.submit is resent
 *   with the same `idempotency_key` (and is not resent at all without one);
 * - `activate` an extension, then retry: only after -32008, only for a URI the buyer says it
 *   implements, only once, and only in `A2A-Extensions`;
 * - `fix` the listed fields: a non-retryable validation error whose failures the dealer listed;
 * - `stop`: non-retryable errors, an exhausted attempt bound, a hint longer than the buyer will wait.
 *
 * The policy holds no state; the caller counts attempts and keeps the extensions it sends.
 */
import { A2A_ERROR_TABLE, EXTENSIONS_HEADER } from '../protocol/codes.js';
import type { AapErrorReading, FieldError } from './reading.js';

export interface RetryPolicyOptions {
  /** Attempts of one request in all, the first included (default 5: at most four retries). */
  maxAttempts?: number;
  /** First backoff wait's ceiling in ms (default 200). */
  baseDelayMs?: number;
  /** Cap on any backoff wait in ms (default 10 000). */
  maxDelayMs?: number;
  /**
   * `full` (default): a random wait in [0, ceiling), the usual choice for many buyers sharing a
   * dealer. `equal`: half the ceiling plus a random half, so every wait is longer than the last.
   */
  jitter?: 'full' | 'equal';
  /** The longest retry hint worth waiting for, in ms (default 60 000); a longer one stops. */
  maxRetryAfterMs?: number;
  /** Extension URIs this buyer implements; a -32008 naming any other URI stops. */
  supportedExtensions?: readonly string[];
  /** Source of randomness in [0, 1) (default Math.random); tests pass a seeded one. */
  random?: () => number;
}

export interface RetryContext {
  /** Attempts of this request made so far (1 after the first one failed). */
  attempt: number;
  /** Extensions the failed attempt already sent in A2A-Extensions. */
  activeExtensions?: readonly string[];
  /** The AAP skill called, and its request data (a lead.submit retry keeps its idempotency_key). */
  skill?: string;
  data?: Readonly<Record<string, unknown>>;
}

export type RetryDecision =
  | { action: 'retry'; afterMs: number; reason: string; idempotencyKey?: string }
  | { action: 'activate'; extensionUri: string; header: string; reason: string }
  | { action: 'fix'; errors: FieldError[]; reason: string }
  | { action: 'stop'; reason: string };

export interface RetryPolicy {
  decide(reading: AapErrorReading, context: RetryContext): RetryDecision;
}

const EXTENSION_REQUIRED = A2A_ERROR_TABLE.EXTENSION_SUPPORT_REQUIRED.code;

function checked(name: string, value: number | undefined, fallback: number, min: number, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new RangeError(`retryPolicy: ${name} must be ${integer ? 'a whole number' : 'a number'} ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

export function retryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  const maxAttempts = checked('maxAttempts', options.maxAttempts, 5, 1, true);
  const baseDelayMs = checked('baseDelayMs', options.baseDelayMs, 200, 0);
  const maxDelayMs = checked('maxDelayMs', options.maxDelayMs, 10_000, 0);
  const maxRetryAfterMs = checked('maxRetryAfterMs', options.maxRetryAfterMs, 60_000, 0);
  const jitter = options.jitter ?? 'full';
  if (jitter !== 'full' && jitter !== 'equal') throw new RangeError(`retryPolicy: jitter must be "full" or "equal", got ${String(jitter)}`);
  const supported = new Set(options.supportedExtensions ?? []);
  const random = options.random ?? Math.random;

  const backoffMs = (attempt: number): number => {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(jitter === 'full' ? random() * ceiling : ceiling / 2 + (random() * ceiling) / 2);
  };

  return {
    decide(reading, context) {
      const what =
        reading.code ?? (reading.jsonRpcCode !== undefined ? `JSON-RPC ${reading.jsonRpcCode}` : reading.kind === 'transport' ? 'no answer' : 'error');
      if (context.attempt >= maxAttempts) return { action: 'stop', reason: `${what}: gave up after ${context.attempt} attempts` };

      if (reading.jsonRpcCode === EXTENSION_REQUIRED || reading.code === 'EXTENSION_SUPPORT_REQUIRED') {
        const uri = reading.extensionUri;
        if (uri === undefined) return { action: 'stop', reason: 'extension required, but the dealer did not name it' };
        if (!supported.has(uri)) return { action: 'stop', reason: `the dealer requires ${uri}, which this buyer does not implement` };
        if (context.activeExtensions?.includes(uri)) return { action: 'stop', reason: `${uri} was already active and the dealer still asks for it` };
        // The dealer's header name is never passed on: a buyer that set whatever header a dealer
        // names could be made to overwrite its Authorization or Cookie with an extension URI.
        const named = reading.requiredHeader;
        if (named !== undefined && named.toLowerCase() !== EXTENSIONS_HEADER.toLowerCase())
          return {
            action: 'stop',
            reason: `the dealer asks for ${uri} in header ${JSON.stringify(named.slice(0, 64))}; extensions are activated in ${EXTENSIONS_HEADER} only`,
          };
        return { action: 'activate', extensionUri: uri, header: EXTENSIONS_HEADER, reason: `activate ${uri}` };
      }

      if (!reading.retryable) {
        if (reading.errors !== undefined && reading.errors.length > 0)
          return { action: 'fix', errors: reading.errors, reason: `${what}: fix ${reading.errors.length} field(s) and send a changed request` };
        return { action: 'stop', reason: `${what}: not retryable` };
      }

      let idempotencyKey: string | undefined;
      if (context.skill === 'lead.submit') {
        const key = context.data?.idempotency_key;
        // Without a key a lost reply may hide a lead that exists: resending could make a second one.
        if (typeof key !== 'string' || key === '') return { action: 'stop', reason: `${what}: a lead.submit without idempotency_key is never resent` };
        idempotencyKey = key;
      }
      let afterMs: number;
      let reason: string;
      if (reading.retryAfterMs !== undefined) {
        if (reading.retryAfterMs > maxRetryAfterMs)
          return { action: 'stop', reason: `${what}: the dealer asks for ${reading.retryAfterMs} ms, more than maxRetryAfterMs (${maxRetryAfterMs})` };
        afterMs = reading.retryAfterMs;
        reason = `${what}: retry after the dealer's hint`;
      } else {
        afterMs = backoffMs(context.attempt);
        reason = `${what}: back off (attempt ${context.attempt} of ${maxAttempts})`;
      }
      return idempotencyKey === undefined ? { action: 'retry', afterMs, reason } : { action: 'retry', afterMs, reason, idempotencyKey };
    },
  };
}
