/**
 * Builds every JSON-RPC error envelope the product emits, for both profiles.
 * Effects, the mock dealer and the proxy ask here for "a RATE_LIMITED envelope for this
 * request under this profile"; nothing else assembles error JSON by hand.
 */
import { newUlid } from './ids.js';
import type { JsonRpcId } from './rpc-id.js';
import type { ValidationProblem } from './validation-problem.js';
import { deriveValidationErrors, type ValidatedRequest } from './validation-details.js';
import {
  A2A_ERROR_DOMAIN,
  DEFAULT_RETRY_AFTER_MS,
  A2A_ERROR_TABLE,
  AAP_CODE_TABLE,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  A2A_VERSION,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  EXTENSIONS_HEADER,
  VALIDATION_CODES,
  type A2aErrorName,
  type AapCode,
  type Profile,
} from './codes.js';

export type { JsonRpcId } from './rpc-id.js';

// In a file of its own, so the validators that produce problems need not import this one.
export type { ValidationProblem } from './validation-problem.js';

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcError;
}

export interface AapErrorPayload {
  type: 'aap.error';
  error_id: string;
  code: AapCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  created_at: string;
}

export interface AapErrorOptions {
  /** Human message inside the aap.error payload (and the JSON-RPC message unless rpcMessage is set). */
  message?: string;
  /** JSON-RPC `error.message`; defaults to `message`. */
  rpcMessage?: string;
  /** Overrides the code's retryable default. */
  retryable?: boolean;
  details?: Record<string, unknown>;
  /** RATE_LIMITED hint; lands in `details.retry_after_ms`. */
  retryAfterMs?: number;
  /** RATE_LIMITED hint in whole seconds; lands in `details.retry_after_seconds`. */
  retryAfterSeconds?: number;
  /** Validation problems; land in `details.errors[]` (and BadRequest under 2.0). */
  errors?: ValidationProblem[];
  /** For a validation code given no errors: the request they are derived from (see validation-details.ts). */
  request?: ValidatedRequest;
  errorId?: string;
  now?: Date | number;
}

export function newErrorId(): string {
  return `err_${newUlid()}`;
}

let cachedSecond = NaN;
let cachedText = '';

/**
 * RFC 3339 UTC with second precision, as in the spec's examples. Under load many errors share a
 * second, and Date#toISOString showed in profiles: the text is kept for the current second.
 */
export function rfc3339(now: Date | number = Date.now()): string {
  const ms = typeof now === 'number' ? now : now.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedText = new Date(second * 1000).toISOString().slice(0, 19) + 'Z';
    cachedSecond = second;
  }
  return cachedText;
}

const hasProblems = (errors: unknown): boolean => Array.isArray(errors) && errors.length > 0;

/**
 * The typed aap.error payload (without the 2.0 `@type`). What the seed asks of every payload is
 * guaranteed here, whoever builds it: a validation code always lists `details.errors[]` (derived
 * from the request when none are given), and RATE_LIMITED always carries a retry hint
 * (DEFAULT_RETRY_AFTER_MS unless one is given in milliseconds or seconds).
 */
export function buildAapPayload(code: AapCode, opts: AapErrorOptions = {}): AapErrorPayload {
  const info = AAP_CODE_TABLE[code];
  let details: Record<string, unknown> | undefined = opts.details ? { ...opts.details } : undefined;
  if (opts.retryAfterMs !== undefined) details = { ...details, retry_after_ms: Math.max(0, Math.ceil(opts.retryAfterMs)) };
  if (opts.retryAfterSeconds !== undefined) details = { ...details, retry_after_seconds: Math.max(0, Math.ceil(opts.retryAfterSeconds)) };
  if (opts.errors && opts.errors.length > 0) details = { ...details, errors: opts.errors };
  if (VALIDATION_CODES.has(code) && !hasProblems(details?.errors)) details = { ...details, errors: deriveValidationErrors(code, opts.request ?? {}) };
  if (code === 'RATE_LIMITED' && details?.retry_after_ms === undefined && details?.retry_after_seconds === undefined) {
    details = { ...details, retry_after_ms: DEFAULT_RETRY_AFTER_MS };
  }
  const payload: AapErrorPayload = {
    type: 'aap.error',
    error_id: opts.errorId ?? newErrorId(),
    code,
    message: opts.message ?? info.message,
    retryable: opts.retryable ?? info.retryable,
    created_at: rfc3339(opts.now ?? Date.now()),
  };
  if (details) payload.details = details;
  return payload;
}

/** An AAP error envelope (one of the 12 codes) in the shape of the given profile. */
export function buildAapError(profile: Profile, code: AapCode, id: JsonRpcId, opts: AapErrorOptions = {}): JsonRpcErrorResponse {
  const payload = buildAapPayload(code, opts);
  const rpcMessage = opts.rpcMessage ?? payload.message;
  const rpcCode = AAP_CODE_TABLE[code].rpc[profile];
  if (profile === '1.3') {
    return { jsonrpc: '2.0', id, error: { code: rpcCode, message: rpcMessage, data: payload } };
  }
  const data: Record<string, unknown>[] = [
    {
      '@type': ERROR_INFO_TYPE,
      reason: code,
      domain: AAP_ERROR_DOMAIN,
      metadata: {
        code,
        error_id: payload.error_id,
        retryable: String(payload.retryable),
        created_at: payload.created_at,
      },
    },
  ];
  const problems = payload.details?.errors as ValidationProblem[] | undefined;
  if (VALIDATION_CODES.has(code) && Array.isArray(problems) && problems.length > 0) {
    // The seed's mirror: one fieldViolation per details.errors[] entry, in the same order.
    data.push({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: problems.map((p) => ({ field: p.instanceLocation, description: `${p.keyword}: ${p.error}` })),
    });
  }
  data.push({ '@type': AAP_ERROR_TYPE_URL, ...payload });
  return { jsonrpc: '2.0', id, error: { code: rpcCode, message: rpcMessage, data } };
}

export interface A2aErrorOptions {
  message?: string;
  /** ErrorInfo metadata; every value is a string (ProtoJSON map<string,string>). */
  metadata?: Record<string, string>;
}

/** An A2A protocol error (or JSON-RPC standard error) in A2A's own shape: data = [ErrorInfo]. */
export function buildA2aError(name: A2aErrorName, id: JsonRpcId, opts: A2aErrorOptions = {}): JsonRpcErrorResponse {
  if (name === 'EXTENSION_SUPPORT_REQUIRED' && !opts.metadata?.extensionUri) {
    // A bare -32008 is forbidden by the 2.0 contract: callers must go through buildExtensionRequired.
    throw new Error('EXTENSION_SUPPORT_REQUIRED needs an extension URI; use buildExtensionRequired');
  }
  const info = A2A_ERROR_TABLE[name];
  const errorInfo: Record<string, unknown> = { '@type': ERROR_INFO_TYPE, reason: name, domain: A2A_ERROR_DOMAIN };
  if (opts.metadata && Object.keys(opts.metadata).length > 0) errorInfo.metadata = { ...opts.metadata };
  return { jsonrpc: '2.0', id, error: { code: info.code, message: opts.message ?? info.message, data: [errorInfo] } };
}

/** -32008 exactly as the 2.0 contract demands: URI and header named in the message and in metadata. */
export function buildExtensionRequired(extensionUri: string, id: JsonRpcId): JsonRpcErrorResponse {
  return buildA2aError('EXTENSION_SUPPORT_REQUIRED', id, {
    message: `Activate ${extensionUri} in the ${EXTENSIONS_HEADER} header before retrying this request.`,
    metadata: { extensionUri, requiredHeader: EXTENSIONS_HEADER },
  });
}

/**
 * -32009 for an absent, empty or unsupported A2A-Version. An empty value means 0.3 per A2A;
 * an absent one is rejected by AAP 2.0 policy.
 */
export function buildVersionNotSupported(requested: string | undefined, id: JsonRpcId, supported: string = A2A_VERSION): JsonRpcErrorResponse {
  const what =
    requested === undefined
      ? 'The A2A-Version header is missing'
      : requested.trim() === ''
        ? "An empty A2A-Version means '0.3', which is not supported"
        : `A2A-Version '${requested}' is not supported`;
  return buildA2aError('VERSION_NOT_SUPPORTED', id, {
    message: `${what}; send A2A-Version: ${supported}.`,
    metadata: { requestedVersion: requested ?? '', supportedVersions: supported },
  });
}

/**
 * The proxy's own reply when the dealer could not be reached: an INTERNAL_ERROR (-32603,
 * retryable) in the profile's shape whose message names the cause.
 */
export function buildUpstreamUnreachable(profile: Profile, id: JsonRpcId, cause: string): JsonRpcErrorResponse {
  return buildAapError(profile, 'INTERNAL_ERROR', id, {
    message: `aap-chaos could not reach the dealer: ${cause}`,
    details: { source: 'aap-chaos', cause },
  });
}

/** What a journal or report needs from any error envelope, whichever profile built it. */
export interface ErrorSummary {
  rpcCode: number;
  /** AAP code, or A2A ErrorInfo reason when no aap.error payload is present. */
  code?: string;
  errorId?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  /** Validation codes only: where each listed problem is (`instanceLocation`s, each once). */
  listedProblems?: string[];
}

/** Finds the AAP payload by its `@type` (2.0) or as the bare object (1.3), never by position. */
export function summarizeError(error: JsonRpcError): ErrorSummary {
  const summary: ErrorSummary = { rpcCode: error.code };
  const data = error.data;
  const entries: unknown[] = Array.isArray(data) ? data : data && typeof data === 'object' ? [data] : [];
  let aap: Record<string, unknown> | undefined;
  let info: Record<string, unknown> | undefined;
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue;
    const e = entry as Record<string, unknown>;
    if (e['@type'] === AAP_ERROR_TYPE_URL || (e.type === 'aap.error' && typeof e.code === 'string')) aap ??= e;
    else if (e['@type'] === ERROR_INFO_TYPE) info ??= e;
  }
  if (aap) {
    summary.code = String(aap.code);
    if (typeof aap.error_id === 'string') summary.errorId = aap.error_id;
    if (typeof aap.retryable === 'boolean') summary.retryable = aap.retryable;
    if (aap.details && typeof aap.details === 'object') summary.details = aap.details as Record<string, unknown>;
  } else if (info && typeof info.reason === 'string') {
    summary.code = info.reason;
    // A dealer (or an SDK on the way) that sends only the ErrorInfo still says retryable, as a string.
    const said = (info.metadata as Record<string, unknown> | undefined)?.retryable;
    if (said === 'true' || said === 'false') summary.retryable = said === 'true';
  }
  if (summary.code !== undefined && VALIDATION_CODES.has(summary.code as AapCode)) {
    const listed = listedProblems(summary.details, entries);
    if (listed !== undefined) summary.listedProblems = listed;
  }
  return summary;
}

/**
 * The `instanceLocation` of every problem a validation error listed, each once: AAP's
 * `details.errors[]`, else the 2.0 BadRequest's `fieldViolations[].field`.
 */
function listedProblems(details: Record<string, unknown> | undefined, entries: unknown[]): string[] | undefined {
  const locations = (list: unknown[], key: string) => [
    ...new Set(list.map((p) => (p as Record<string, unknown> | null)?.[key]).filter((l): l is string => typeof l === 'string')),
  ];
  if (Array.isArray(details?.errors)) return locations(details.errors, 'instanceLocation');
  const badRequest = entries.find((e) => (e as Record<string, unknown> | null)?.['@type'] === BAD_REQUEST_TYPE) as { fieldViolations?: unknown } | undefined;
  return Array.isArray(badRequest?.fieldViolations) ? locations(badRequest.fieldViolations, 'field') : undefined;
}

/**
 * The proxy's own answer to a request it refuses before reading it whole (body too large, body
 * stalled): a JSON-RPC Invalid Request (-32600) with id null, since the id was never read.
 */
export function buildRequestRefused(reason: string): JsonRpcErrorResponse {
  return buildA2aError('INVALID_REQUEST', null, { message: `aap-chaos refused the request: ${reason}`, metadata: { source: 'aap-chaos' } });
}

/** What a replayed dealer could not find, and the recorded request closest to it. */
export interface ReplayMiss {
  method: string;
  skill?: string;
  /** The canonical hash of the request's DataPart (or params) that matched no recorded one. */
  hash: string;
  nearest?: { exchange: number; method: string; skill?: string; differsAt: string[] };
}

/**
 * A replayed dealer's answer to a request it has no recording of: INTERNAL_ERROR (the dealer
 * cannot answer), not retryable (the same request finds the same nothing), naming the request
 * and the nearest recorded one so the buyer's developer sees what to record or ignore.
 */
export function buildReplayMiss(profile: Profile, id: JsonRpcId, miss: ReplayMiss): JsonRpcErrorResponse {
  const what = `${miss.method}${miss.skill ? ` ${miss.skill}` : ''}`;
  const near = miss.nearest;
  const nearest = near
    ? `nearest recorded request: exchange ${near.exchange} (${near.method}${near.skill ? ` ${near.skill}` : ''})${near.differsAt.length ? `, which differs at ${near.differsAt.slice(0, 3).join(', ')}${near.differsAt.length > 3 ? ` and ${near.differsAt.length - 3} more` : ''}` : ''}`
    : 'no recorded request has this method';
  return buildAapError(profile, 'INTERNAL_ERROR', id, {
    message: `aap-chaos replay: no recorded reply for ${what} with this DataPart (hash ${miss.hash}); ${nearest}`,
    retryable: false,
    details: {
      source: 'aap-chaos',
      replay_miss: {
        method: miss.method,
        ...(miss.skill ? { skill: miss.skill } : {}),
        hash: miss.hash,
        nearest: near
          ? { exchange: near.exchange, method: near.method, ...(near.skill ? { skill: near.skill } : {}), differs_at: near.differsAt.slice(0, 20) }
          : null,
      },
    },
  });
}
