/**
 * Reads one JSON-RPC `error` member ({code, message, data}) of either profile: under AAP 1.3
 * `data` is the bare aap.error object, under the 2.0 draft an array in which the AAP payload,
 * the ErrorInfo and the BadRequest are found by `@type`, never by position, and unknown entries
 * are ignored. The per-instance `retryable` wins over the table default; ErrorInfo metadata is
 * read as the contract defines it (every value a string, `"true"` / `"false"` for retryable).
 */
import {
  A2A_ERROR_TABLE,
  AAP_CODE_TABLE,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  EXTENSIONS_HEADER,
  RETRY_INFO_TYPE,
  VALIDATION_CODES,
  isAapCode,
} from '../protocol/codes.js';
import {
  MAX_ENTRIES,
  MAX_FIELD_ERRORS,
  boundedMessage,
  hintMs,
  isObject,
  typeName,
  type AapErrorReading,
  type FieldError,
  type Json,
  type NotFound,
} from './reading.js';

/** What is known about the HTTP reply that carried the error (from aapFetch, or an HTTP failure value). */
export interface HttpFacts {
  status?: number;
  retryAfterMs?: number;
}

const EXTENSION_REQUIRED = A2A_ERROR_TABLE.EXTENSION_SUPPORT_REQUIRED.code;
const A2A_NAME_BY_CODE = new Map(Object.entries(A2A_ERROR_TABLE).map(([name, info]) => [info.code, name]));

interface Entries {
  payload?: Json;
  aapInfo?: Json;
  otherInfos: Json[];
  badRequest?: Json;
  retryInfo?: Json;
}

/** Sorts `data` into the entries the contract names; everything else is ignored. */
function sortEntries(data: unknown, notFound: NotFound[]): Entries {
  const found: Entries = { otherInfos: [] };
  let list: unknown[];
  if (Array.isArray(data)) {
    if (data.length > MAX_ENTRIES) notFound.push({ field: 'data', why: `only the first ${MAX_ENTRIES} of ${data.length} entries were read` });
    list = data.slice(0, MAX_ENTRIES);
  } else if (isObject(data)) list = [data];
  else {
    if (data !== undefined) notFound.push({ field: 'data', why: `error.data is ${typeName(data)}, not an array or object` });
    return found;
  }
  let untypedPayload: Json | undefined;
  for (const entry of list) {
    if (!isObject(entry)) continue;
    const type = entry['@type'];
    if (type === AAP_ERROR_TYPE_URL) found.payload ??= entry;
    else if (type === ERROR_INFO_TYPE) {
      if (entry.domain === AAP_ERROR_DOMAIN) found.aapInfo ??= entry;
      else found.otherInfos.push(entry);
    } else if (type === BAD_REQUEST_TYPE) found.badRequest ??= entry;
    else if (type === RETRY_INFO_TYPE) found.retryInfo ??= entry;
    else if (type === undefined && entry.type === 'aap.error') untypedPayload ??= entry;
  }
  if (!found.payload && untypedPayload) {
    found.payload = untypedPayload;
    // The 1.3 payload has no @type by design; in a 2.0 array it should have one.
    if (Array.isArray(data)) notFound.push({ field: '@type', why: 'the aap.error entry carries no @type; it was read by its type field' });
  }
  return found;
}

/** A metadata value, read only when it is the string the contract says it is. */
function metadataString(info: Json | undefined, key: string, notFound: NotFound[]): string | undefined {
  const metadata = info?.metadata;
  if (!isObject(metadata) || metadata[key] === undefined) return undefined;
  const value = metadata[key];
  if (typeof value === 'string') return value;
  notFound.push({ field: `metadata.${key}`, why: `is ${typeName(value)}; ErrorInfo metadata values are strings, so it was not read` });
  return undefined;
}

function metadataRetryable(info: Json | undefined, notFound: NotFound[]): boolean | undefined {
  const text = metadataString(info, 'retryable', notFound);
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text !== undefined) notFound.push({ field: 'metadata.retryable', why: `is "${text.slice(0, 20)}", neither "true" nor "false"` });
  return undefined;
}

function fieldErrorsOf(value: unknown, notFound: NotFound[]): FieldError[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const errors: FieldError[] = [];
  let skipped = 0;
  for (const e of value.slice(0, MAX_FIELD_ERRORS)) {
    if (isObject(e) && typeof e.instanceLocation === 'string' && typeof e.keyword === 'string' && typeof e.error === 'string') {
      errors.push({ instanceLocation: e.instanceLocation, keyword: e.keyword, error: e.error });
    } else skipped++;
  }
  if (skipped > 0) notFound.push({ field: 'errors', why: `${skipped} details.errors[] entries lack a string instanceLocation, keyword or error` });
  if (value.length > MAX_FIELD_ERRORS) notFound.push({ field: 'errors', why: `only the first ${MAX_FIELD_ERRORS} of ${value.length} were read` });
  return errors;
}

/** BadRequest `fieldViolations` ({field: pointer, description: "keyword: text"}) as field errors. */
function violationsOf(badRequest: Json | undefined): FieldError[] | undefined {
  const violations = badRequest?.fieldViolations;
  if (!Array.isArray(violations)) return undefined;
  const errors: FieldError[] = [];
  for (const v of violations.slice(0, MAX_FIELD_ERRORS)) {
    if (!isObject(v) || typeof v.field !== 'string' || typeof v.description !== 'string') continue;
    const m = /^([A-Za-z$][\w$-]*): ([\s\S]*)$/.exec(v.description);
    errors.push({ instanceLocation: v.field, keyword: m ? m[1]! : '', error: m ? m[2]! : v.description });
  }
  return errors;
}

/** A google.protobuf.Duration in ProtoJSON ("30s", "1.5s") as ms. */
function durationMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{1,10}(?:\.\d{1,9})?)s$/.exec(value);
  return m ? Math.ceil(Number(m[1]) * 1000) : undefined;
}

/** The first http(s) URI of a message (scanned within its first few KB). */
function uriInMessage(message: string): string | undefined {
  return /https?:\/\/[^\s'"),]+/.exec(message.slice(0, 8192))?.[0]?.replace(/\.$/, '');
}

/** Reads one JSON-RPC error member. `error` must be an object; everything inside it is checked. */
export function readRpcError(error: Json, http: HttpFacts = {}): AapErrorReading {
  const notFound: NotFound[] = [];
  const jsonRpcCode = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
  if (jsonRpcCode === undefined) notFound.push({ field: 'jsonRpcCode', why: `error.code is ${typeName(error.code)}, not an integer` });
  const rpcMessage = typeof error.message === 'string' ? error.message : '';
  const { payload, aapInfo, otherInfos, badRequest, retryInfo } = sortEntries(error.data, notFound);
  const reading: AapErrorReading = { kind: payload || aapInfo ? 'aap' : 'a2a', retryable: false, message: '', notFound };
  if (jsonRpcCode !== undefined) reading.jsonRpcCode = jsonRpcCode;
  if (http.status !== undefined) reading.httpStatus = http.status;

  // The code: the payload's, else the AAP ErrorInfo's (metadata.code is there for SDKs that drop reason), else A2A's.
  const a2aInfo = otherInfos[0];
  let code: string | undefined;
  if (payload) {
    if (typeof payload.code === 'string') code = payload.code;
    else notFound.push({ field: 'code', why: `the aap.error payload's code is ${typeName(payload.code)}` });
  }
  if (code === undefined && aapInfo) {
    code = metadataString(aapInfo, 'code', notFound) ?? (typeof aapInfo.reason === 'string' ? aapInfo.reason : undefined);
    if (!payload) notFound.push({ field: 'payload', why: 'no aap.error entry in error.data: read from the AAP ErrorInfo' });
  }
  if (code === undefined && !payload && !aapInfo) {
    const named = jsonRpcCode === undefined ? undefined : A2A_NAME_BY_CODE.get(jsonRpcCode);
    if (typeof a2aInfo?.reason === 'string') code = a2aInfo.reason;
    else if (named !== undefined && isAapCode(named)) {
      // A bare -32603 is JSON-RPC's internal error, not the AAP code of the same name: without a
      // typed payload the dealer named no AAP code, so none is made up (nor its retryable default).
      notFound.push({ field: 'payload', why: `no aap.error payload or ErrorInfo: a bare JSON-RPC ${jsonRpcCode} names no AAP code` });
    } else if (named !== undefined) {
      code = named;
      notFound.push({ field: 'code', why: `no ErrorInfo reason: named after the JSON-RPC code ${jsonRpcCode}` });
    }
  }
  if (code !== undefined) reading.code = code;
  else notFound.push({ field: 'code', why: 'neither an aap.error payload nor an ErrorInfo names one' });
  if (code !== undefined && reading.kind === 'aap' && !isAapCode(code))
    notFound.push({ field: 'code', why: `"${code.slice(0, 64)}" is not one of the 12 AAP codes` });

  // retryable: the dealer's per-instance value over the table default.
  let retryable: boolean | undefined = typeof payload?.retryable === 'boolean' ? payload.retryable : undefined;
  if (payload && retryable === undefined)
    notFound.push({ field: 'retryable', why: `the payload's retryable is ${typeName(payload.retryable)}, not a boolean` });
  const metaRetryable = metadataRetryable(aapInfo, notFound);
  retryable ??= metaRetryable;
  if (retryable === undefined) {
    retryable = code !== undefined && isAapCode(code) ? AAP_CODE_TABLE[code].retryable : false;
    notFound.push({
      field: 'retryable',
      why: `the dealer did not say: ${code !== undefined && isAapCode(code) ? `the table default for ${code}` : 'taken as false'}`,
    });
  }
  reading.retryable = retryable;

  reading.message = boundedMessage(typeof payload?.message === 'string' ? payload.message : rpcMessage, notFound);
  const errorId = typeof payload?.error_id === 'string' ? payload.error_id : metadataString(aapInfo, 'error_id', notFound);
  if (errorId !== undefined) reading.errorId = errorId;
  else if (reading.kind === 'aap') notFound.push({ field: 'errorId', why: 'no error_id in the payload or the ErrorInfo metadata' });

  const details = isObject(payload?.details) ? payload.details : undefined;
  const retryAfterMs = hintMs(details?.retry_after_ms) ?? hintMs(details?.retry_after_seconds, 1000) ?? durationMs(retryInfo?.retryDelay) ?? http.retryAfterMs;
  if (retryAfterMs !== undefined) reading.retryAfterMs = retryAfterMs;
  else if (retryable) {
    const given = details?.retry_after_ms ?? details?.retry_after_seconds;
    notFound.push({
      field: 'retryAfterMs',
      why: given === undefined ? 'no retry hint: back off on your own' : `the hint is ${typeName(given)}, not a non-negative number`,
    });
  }

  const errors = fieldErrorsOf(details?.errors, notFound) ?? violationsOf(badRequest);
  if (errors !== undefined) reading.errors = errors;
  else if (code !== undefined && isAapCode(code) && VALIDATION_CODES.has(code))
    notFound.push({ field: 'errors', why: 'no details.errors[] and no BadRequest' });

  // The activation hint: ErrorInfo metadata, else the message (which the contract makes name both).
  if (jsonRpcCode === EXTENSION_REQUIRED || code === 'EXTENSION_SUPPORT_REQUIRED') {
    const info = otherInfos.find((i) => isObject(i.metadata) && i.metadata.extensionUri !== undefined) ?? a2aInfo;
    const uri = metadataString(info, 'extensionUri', notFound) ?? uriInMessage(rpcMessage);
    const header = metadataString(info, 'requiredHeader', notFound) ?? (rpcMessage.includes(EXTENSIONS_HEADER) ? EXTENSIONS_HEADER : undefined);
    if (uri !== undefined) reading.extensionUri = uri;
    else notFound.push({ field: 'extensionUri', why: 'neither ErrorInfo metadata nor the message names the extension' });
    if (header !== undefined) reading.requiredHeader = header;
    else notFound.push({ field: 'requiredHeader', why: 'neither ErrorInfo metadata nor the message names the header' });
  }
  return reading;
}
