/** The error-reply rules (AAP-ERR-*): both profiles' envelopes, the code table, -32008, A2A's own shape. */
import {
  A2A_ERROR_DOMAIN,
  A2A_ERROR_TABLE,
  AAP_CODE_TABLE,
  AAP_ERROR_DOMAIN,
  AAP_ERROR_TYPE_URL,
  AAP_SKILLS,
  BAD_REQUEST_TYPE,
  ERROR_INFO_TYPE,
  EXTENSIONS_HEADER,
  VALIDATION_CODES,
  isAapCode,
  type AapSkill,
} from '../codes.js';
import type { Exchange } from './exchange.js';
import { Findings } from './rules.js';
import { requestProblemLocations } from './schemas.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text that reads like a stack trace (Node, Python, JVM, Ruby, Go frames or file:line positions). */
const STACK_TRACE =
  /\n\s*at\s+\S|\bat\s+\S+\s+\([^)]*:\d+:\d+\)|Traceback \(most recent call last\)|File "[^"]+", line \d+|\.(?:js|ts|mjs|cjs|py|rb|java|go):\d+(?::\d+)?\b/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A2A-specific codes (-32001 … -32009) by number, with the ErrorInfo reason each must carry. */
const A2A_REASON_BY_CODE = new Map(
  Object.entries(A2A_ERROR_TABLE)
    .filter(([, v]) => !v.standard)
    .map(([name, v]) => [v.code, name]),
);
const JSONRPC_STANDARD = new Set([-32700, -32600, -32601, -32602, -32603]);

export function looksLikeStackTrace(text: string): boolean {
  return STACK_TRACE.test(text);
}

/** The typed AAP payload: by @type in an array (2.0), or the bare aap.error object (1.3). */
function findAapPayload(data: unknown): { payload: Json; pointer: string } | undefined {
  if (Array.isArray(data)) {
    const i = data.findIndex((e) => isObject(e) && (e['@type'] === AAP_ERROR_TYPE_URL || e.type === 'aap.error'));
    return i === -1 ? undefined : { payload: data[i] as Json, pointer: `/data/${i}` };
  }
  if (isObject(data) && (data.type === 'aap.error' || data['@type'] === AAP_ERROR_TYPE_URL)) return { payload: data, pointer: '/data' };
  return undefined;
}

/** Whether an instance location is listed: the same pointer, or its parent with the same keyword (JSON Schema's own output form). */
function listed(problem: { pointer: string; keyword: string }, entries: Json[]): boolean {
  const parent = problem.pointer.slice(0, Math.max(0, problem.pointer.lastIndexOf('/')));
  return entries.some((e) => e.instanceLocation === problem.pointer || (e.instanceLocation === parent && e.keyword === problem.keyword));
}

/**
 * Checks one JSON-RPC error object. `at` is the pointer of the `error` member
 * (`/error`, or `/events/3/error` inside a stream).
 */
export function checkError(f: Findings, ex: Exchange, error: unknown, at = '/error'): void {
  if (!isObject(error)) {
    f.expect('AAP-ERR-001', false, at, 'an object with code and message', error);
    return;
  }
  const code = error.code;
  f.expect('AAP-ERR-001', Number.isInteger(code), `${at}/code`, 'an integer', code);
  f.expect('AAP-ERR-001', typeof error.message === 'string', `${at}/message`, 'a string', error.message);
  const message = typeof error.message === 'string' ? error.message : '';
  f.expect('AAP-ERR-012', !looksLikeStackTrace(message), `${at}/message`, 'no stack trace', message);

  const found = findAapPayload(error.data);
  const skill = ex.request.skill;
  const isA2aCode = typeof code === 'number' && (A2A_REASON_BY_CODE.has(code) || JSONRPC_STANDARD.has(code));
  // A2A's own errors have no AAP payload; a skill call answered by anything else is a skill-level error.
  const skillLevel = found !== undefined || (!isA2aCode && skill !== undefined);
  if (!skillLevel) {
    checkA2aError(f, ex, error, message, at);
    return;
  }
  checkAapError(f, ex, error, found, at);
  if (skill !== undefined && !(AAP_SKILLS as readonly string[]).includes(skill)) {
    f.expect(
      'AAP-HDR-004',
      found?.payload.code === 'UNSUPPORTED_SKILL',
      `${at}${found ? `${found.pointer}/code` : '/data'}`,
      'UNSUPPORTED_SKILL',
      found?.payload.code,
    );
  }
}

function checkAapError(f: Findings, ex: Exchange, error: Json, found: { payload: Json; pointer: string } | undefined, at: string): void {
  const data = error.data;
  const profile = ex.profile;
  if (profile === '2.0') {
    const ok = Array.isArray(data) && data.length > 0 && data.every((e) => isObject(e) && typeof e['@type'] === 'string');
    f.expect(
      'AAP-ERR-002',
      ok,
      `${at}/data`,
      'an array of objects, each with @type',
      Array.isArray(data) ? data.map((e) => (isObject(e) ? (e['@type'] ?? '(no @type)') : e)) : data,
    );
  } else {
    f.expect('AAP-ERR-002', isObject(data) && data.type === 'aap.error', `${at}/data`, 'the bare aap.error object', Array.isArray(data) ? '(an array)' : data);
  }
  if (!found) {
    f.expect('AAP-ERR-006', false, `${at}/data`, 'a typed aap.error payload', data);
    return;
  }
  const { payload } = found;
  const p = `${at}${found.pointer}`;
  const fieldChecks: [string, boolean, string][] = [
    ['type', payload.type === 'aap.error', '"aap.error"'],
    ['error_id', typeof payload.error_id === 'string' && payload.error_id !== '', 'a non-empty string'],
    ['code', isAapCode(payload.code), 'one of the 12 AAP codes'],
    ['message', typeof payload.message === 'string', 'a string'],
    ['created_at', typeof payload.created_at === 'string' && RFC3339.test(payload.created_at), 'an RFC 3339 date-time'],
  ];
  if (profile === '2.0') fieldChecks.push(['@type', payload['@type'] === AAP_ERROR_TYPE_URL, AAP_ERROR_TYPE_URL]);
  let payloadOk = true;
  for (const [field, ok, expected] of fieldChecks) if (!ok) payloadOk = f.expect('AAP-ERR-006', false, `${p}/${field}`, expected, payload[field]);
  if (payloadOk) f.expect('AAP-ERR-006', true, p, 'a typed aap.error payload', 'present');
  f.expect('AAP-ERR-007', typeof payload.retryable === 'boolean', `${p}/retryable`, 'true or false', payload.retryable);
  if (typeof payload.message === 'string') f.expect('AAP-ERR-012', !looksLikeStackTrace(payload.message), `${p}/message`, 'no stack trace', payload.message);

  const code = isAapCode(payload.code) ? payload.code : undefined;
  if (code)
    f.expect(
      'AAP-ERR-008',
      error.code === AAP_CODE_TABLE[code].rpc[profile],
      `${at}/code`,
      `${AAP_CODE_TABLE[code].rpc[profile]} for ${code} under ${profile}`,
      error.code,
    );

  if (profile === '2.0' && Array.isArray(data)) checkErrorInfo(f, data, payload, at);

  const details = isObject(payload.details) ? payload.details : undefined;
  if (code && VALIDATION_CODES.has(code)) {
    const errors = Array.isArray(details?.errors) ? (details!.errors as unknown[]) : undefined;
    const entriesOk =
      errors !== undefined &&
      errors.length > 0 &&
      errors.every((e) => isObject(e) && typeof e.instanceLocation === 'string' && typeof e.keyword === 'string' && typeof e.error === 'string');
    f.expect('AAP-ERR-009', entriesOk, `${p}/details/errors`, 'a non-empty list of {instanceLocation, keyword, error}', errors);
    const listedEntries = (errors ?? []).filter(isObject);
    if (profile === '2.0' && Array.isArray(data)) {
      const badRequestAt = data.findIndex((e) => isObject(e) && e['@type'] === BAD_REQUEST_TYPE);
      const violations = badRequestAt === -1 ? undefined : (data[badRequestAt] as Json).fieldViolations;
      const fields = Array.isArray(violations) ? violations.map((v) => (isObject(v) ? v.field : undefined)) : [];
      const mirror = listedEntries.map((e) => e.instanceLocation);
      const same = fields.length === mirror.length && mirror.every((m) => fields.includes(m));
      f.expect(
        'AAP-ERR-010',
        badRequestAt !== -1 && same,
        badRequestAt === -1 ? `${at}/data` : `${at}/data/${badRequestAt}/fieldViolations`,
        `fieldViolations for ${JSON.stringify(mirror)}`,
        badRequestAt === -1 ? '(no google.rpc.BadRequest)' : fields,
      );
    }
    checkAllProblemsListed(f, ex, listedEntries, `${p}/details/errors`);
  }
  if (code === 'RATE_LIMITED') {
    const hint = typeof details?.retry_after_ms === 'number' || typeof details?.retry_after_seconds === 'number';
    f.expect('AAP-ERR-016', hint, `${p}/details`, 'retry_after_ms or retry_after_seconds', details);
  }
}

/** AAP-ERR-003/004/005: the 2.0 ErrorInfo, found first by position, then by @type. */
function checkErrorInfo(f: Findings, data: unknown[], payload: Json, at: string): void {
  const first = data[0];
  f.expect(
    'AAP-ERR-003',
    isObject(first) && first['@type'] === ERROR_INFO_TYPE,
    `${at}/data/0/@type`,
    ERROR_INFO_TYPE,
    isObject(first) ? first['@type'] : first,
  );
  const i = data.findIndex((e) => isObject(e) && e['@type'] === ERROR_INFO_TYPE);
  if (i === -1) {
    f.expect('AAP-ERR-004', false, `${at}/data`, 'a google.rpc.ErrorInfo', '(none)');
    f.expect('AAP-ERR-005', false, `${at}/data`, 'a google.rpc.ErrorInfo with metadata', '(none)');
    return;
  }
  const info = data[i] as Json;
  const p = `${at}/data/${i}`;
  f.expect('AAP-ERR-004', info.reason === payload.code, `${p}/reason`, String(payload.code), info.reason);
  f.expect('AAP-ERR-004', info.domain === AAP_ERROR_DOMAIN, `${p}/domain`, AAP_ERROR_DOMAIN, info.domain);
  const metadata = info.metadata;
  if (!isObject(metadata)) {
    f.expect('AAP-ERR-005', false, `${p}/metadata`, 'a map of strings', metadata);
    return;
  }
  let ok = true;
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') ok = f.expect('AAP-ERR-005', false, `${p}/metadata/${key}`, 'a string', value) && ok;
  }
  const want: Record<string, unknown> = {
    code: payload.code,
    error_id: payload.error_id,
    retryable: typeof payload.retryable === 'boolean' ? String(payload.retryable) : undefined,
    created_at: payload.created_at,
  };
  for (const [key, value] of Object.entries(want)) {
    if (metadata[key] === undefined)
      ok = f.expect('AAP-ERR-005', false, `${p}/metadata/${key}`, value === undefined ? 'present' : JSON.stringify(String(value)), undefined) && ok;
    else if (typeof metadata[key] === 'string' && value !== undefined && metadata[key] !== String(value))
      ok = f.expect('AAP-ERR-005', false, `${p}/metadata/${key}`, JSON.stringify(String(value)), metadata[key]) && ok;
  }
  if (ok) f.expect('AAP-ERR-005', true, `${p}/metadata`, 'string metadata matching the payload', 'as expected');
}

/** AAP-ERR-011: every problem the request's schema finds is among the listed entries. */
function checkAllProblemsListed(f: Findings, ex: Exchange, entries: Json[], at: string): void {
  const { skill, skillData } = ex.request;
  if (!skill || !skillData || !(AAP_SKILLS as readonly string[]).includes(skill)) return;
  const problems = requestProblemLocations(skill as AapSkill, skillData);
  if (problems.length === 0) return;
  const missing = problems.filter((pr) => !listed(pr, entries)).map((pr) => pr.pointer);
  f.expect(
    'AAP-ERR-011',
    missing.length === 0,
    at,
    `all of ${JSON.stringify(problems.map((pr) => pr.pointer))}`,
    missing.length === 0 ? 'all listed' : `missing ${JSON.stringify(missing)}`,
  );
}

/** AAP-ERR-011 for a success: an invalid request that was served instead of refused. */
export function checkInvalidRequestServed(f: Findings, ex: Exchange): void {
  const { skill, skillData } = ex.request;
  if (!skill || !skillData || !(AAP_SKILLS as readonly string[]).includes(skill)) return;
  const problems = requestProblemLocations(skill as AapSkill, skillData);
  if (problems.length > 0)
    f.expect('AAP-ERR-011', false, '/result', `a validation error listing ${JSON.stringify(problems.map((pr) => pr.pointer))}`, '(a success reply)');
}

/** A2A protocol errors: -32008 by its own two rules, -32001…-32009 in A2A's shape. */
function checkA2aError(f: Findings, ex: Exchange, error: Json, message: string, at: string): void {
  const code = error.code as number;
  const data = error.data;
  const entries = Array.isArray(data) ? data : [];
  if (code === -32008) {
    const infoAt = entries.findIndex((e) => isObject(e) && e['@type'] === ERROR_INFO_TYPE);
    const info = infoAt === -1 ? undefined : (entries[infoAt] as Json);
    const metadata = isObject(info?.metadata) ? (info!.metadata as Json) : undefined;
    const uri = ex.extensionUri ?? (typeof metadata?.extensionUri === 'string' ? metadata.extensionUri : undefined);
    const names = uri !== undefined && message.includes(uri) && message.includes(EXTENSIONS_HEADER);
    f.expect('AAP-ERR-013', names, `${at}/message`, `names ${uri ?? 'the extension URI'} and ${EXTENSIONS_HEADER}`, message);
    if (!info) {
      f.expect('AAP-ERR-014', false, `${at}/data`, 'a google.rpc.ErrorInfo for EXTENSION_SUPPORT_REQUIRED', data);
      return;
    }
    const p = `${at}/data/${infoAt}`;
    let ok = true;
    if (info.domain !== A2A_ERROR_DOMAIN) ok = f.expect('AAP-ERR-014', false, `${p}/domain`, A2A_ERROR_DOMAIN, info.domain) && ok;
    if (info.reason !== 'EXTENSION_SUPPORT_REQUIRED') ok = f.expect('AAP-ERR-014', false, `${p}/reason`, 'EXTENSION_SUPPORT_REQUIRED', info.reason) && ok;
    if (typeof metadata?.extensionUri !== 'string' || (uri !== undefined && metadata.extensionUri !== uri) || !message.includes(metadata.extensionUri))
      ok = f.expect('AAP-ERR-014', false, `${p}/metadata/extensionUri`, `${uri ?? 'the extension URI'}, as in the message`, metadata?.extensionUri) && ok;
    if (metadata?.requiredHeader !== EXTENSIONS_HEADER)
      ok = f.expect('AAP-ERR-014', false, `${p}/metadata/requiredHeader`, EXTENSIONS_HEADER, metadata?.requiredHeader) && ok;
    if (ok) f.expect('AAP-ERR-014', true, p, 'the EXTENSION_SUPPORT_REQUIRED ErrorInfo', 'as expected');
    return;
  }
  const reason = A2A_REASON_BY_CODE.get(code);
  if (reason === undefined) return; // JSON-RPC's standard codes: A2A asks nothing more of them
  const infoAt = entries.findIndex((e) => isObject(e) && e['@type'] === ERROR_INFO_TYPE && e.domain === A2A_ERROR_DOMAIN);
  const info = infoAt === -1 ? undefined : (entries[infoAt] as Json);
  if (!Array.isArray(data) || !info) {
    f.expect('AAP-ERR-015', false, `${at}/data`, `an array with an ErrorInfo of domain ${A2A_ERROR_DOMAIN}`, data);
    return;
  }
  f.expect('AAP-ERR-015', info.reason === reason, `${at}/data/${infoAt}/reason`, reason, info.reason);
}
