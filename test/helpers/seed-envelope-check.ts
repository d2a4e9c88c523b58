/**
 * A second, independent check of error envelopes, written sentence by sentence from seed 000
 * (the AAP 2.0 error contract) and the frozen 1.3 shape, without importing anything from src/:
 * if the envelope builders and the envelope schemas share a misreading, this catches it.
 * Returns the broken rules as sentences; an empty list means the envelope keeps every one.
 */

type Profile = '1.3' | '2.0';
type Obj = Record<string, unknown>;

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const AAP_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';

/** "The 12 codes, their meaning, recommended JSON-RPC code, and retryable default" (2.0), and the 1.3 numbers where they differ. */
const CODES: Record<string, { rpc20: number; rpc13: number }> = {
  UNSUPPORTED_SKILL: { rpc20: -32004, rpc13: -32601 },
  SCHEMA_VALIDATION_FAILED: { rpc20: -32602, rpc13: -32602 },
  MISSING_REQUIRED_FIELD: { rpc20: -32602, rpc13: -32602 },
  INVALID_CONDITION: { rpc20: -32602, rpc13: -32602 },
  VEHICLE_NOT_FOUND: { rpc20: -32000, rpc13: -32000 },
  VEHICLE_UNAVAILABLE: { rpc20: -32000, rpc13: -32000 },
  CONTACT_CONSENT_REQUIRED: { rpc20: -32000, rpc13: -32000 },
  INVALID_CONSENT: { rpc20: -32000, rpc13: -32000 },
  APPOINTMENT_TIME_UNAVAILABLE: { rpc20: -32000, rpc13: -32000 },
  IDEMPOTENCY_CONFLICT: { rpc20: -32000, rpc13: -32000 },
  RATE_LIMITED: { rpc20: -32000, rpc13: -32002 },
  INTERNAL_ERROR: { rpc20: -32603, rpc13: -32603 },
};
const VALIDATION = new Set(['SCHEMA_VALIDATION_FAILED', 'MISSING_REQUIRED_FIELD', 'INVALID_CONDITION']);

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const isDateTime = (v: unknown): boolean =>
  typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v));
const STACK = /\n\s+at |\.(ts|js):\d+/;

export function seedViolations(envelope: unknown, profile: Profile): string[] {
  const out: string[] = [];
  const fail = (sentence: string) => out.push(sentence);
  if (!isObj(envelope)) return ['the reply is not a JSON object'];
  if (envelope.jsonrpc !== '2.0') fail('jsonrpc is "2.0"');
  if (!('id' in envelope)) fail('the response carries the request id');
  const error = envelope.error;
  if (!isObj(error)) return [...out, 'error is an object'];
  if (!Number.isInteger(error.code)) fail('error.code is an integer');
  if (typeof error.message !== 'string' || error.message === '') fail('error.message is a non-empty string');
  else if (STACK.test(error.message)) fail('dealer agents MUST NOT leak internal stack traces in message');

  const data = error.data;
  const entries: Obj[] = Array.isArray(data) ? (data as Obj[]) : [];
  const aap = Array.isArray(data) ? entries.find((e) => isObj(e) && e['@type'] === AAP_TYPE) : isObj(data) && data.type === 'aap.error' ? data : undefined;

  if (Array.isArray(data)) {
    if (data.length === 0) fail('error.data is a non-empty array');
    entries.forEach((e, i) => {
      if (!isObj(e) || typeof e['@type'] !== 'string') fail(`each error.data entry MUST carry an @type key (entry ${i})`);
    });
    const info = entries[0];
    if (!isObj(info) || info['@type'] !== ERROR_INFO) fail('the array MUST lead with a google.rpc.ErrorInfo');
    else if (info.metadata !== undefined) {
      if (!isObj(info.metadata)) fail('ErrorInfo.metadata is a map');
      else
        for (const [k, v] of Object.entries(info.metadata))
          if (typeof v !== 'string') fail(`ErrorInfo.metadata is a map<string,string>: ${k} is ${JSON.stringify(v)}, not a string`);
    }
    if (!aap) checkA2aError(error, info, fail);
  } else if (profile === '2.0') {
    fail('under 2.0, error.data is an array');
  } else if (!aap) {
    fail('under 1.3, an AAP error carries the bare aap.error object in error.data');
  }

  if (aap) checkAapPayload(error, aap, entries, profile, fail);
  return out;
}

function checkAapPayload(error: Obj, aap: Obj, entries: Obj[], profile: Profile, fail: (s: string) => void): void {
  const code = aap.code;
  if (aap.type !== 'aap.error') fail('type is always aap.error');
  if (typeof aap.error_id !== 'string' || aap.error_id === '') fail('error_id is a unique string');
  if (typeof code !== 'string' || !(code in CODES)) {
    fail('code is one of the 12 AAP error codes');
    return;
  }
  if (typeof aap.message !== 'string' || aap.message === '') fail('message is a human-readable string');
  else if (STACK.test(aap.message)) fail('no stack trace in the payload message');
  if (typeof aap.retryable !== 'boolean') fail('retryable is a boolean');
  if (!isDateTime(aap.created_at)) fail('created_at is a date-time');
  if (aap.details !== undefined && !isObj(aap.details)) fail('details is an object');
  const details = isObj(aap.details) ? aap.details : {};
  const expectedRpc = profile === '2.0' ? CODES[code]!.rpc20 : CODES[code]!.rpc13;
  if (error.code !== expectedRpc) fail(`${code} travels on JSON-RPC ${expectedRpc} under ${profile}, not ${String(error.code)}`);

  const problems = details.errors;
  if (VALIDATION.has(code)) {
    if (!Array.isArray(problems) || problems.length === 0) fail(`${code}: details.errors[] lists every failing field (MUST)`);
    else
      problems.forEach((p, i) => {
        if (!isObj(p) || typeof p.instanceLocation !== 'string' || typeof p.keyword !== 'string' || typeof p.error !== 'string') {
          fail(`details.errors[${i}] has instanceLocation, keyword and error strings`);
        } else if (p.instanceLocation !== '' && !p.instanceLocation.startsWith('/')) fail(`details.errors[${i}].instanceLocation is a JSON Pointer`);
      });
  }
  if (code === 'RATE_LIMITED') {
    const hint = details.retry_after_ms ?? details.retry_after_seconds;
    if (typeof hint !== 'number' || hint < 0) fail('RATE_LIMITED SHOULD include details.retry_after_ms (or retry_after_seconds)');
  }

  if (profile !== '2.0') return;
  const info = entries[0];
  if (!isObj(info) || info['@type'] !== ERROR_INFO) return; // already reported
  if (info.domain !== 'autoagentprotocol.org') fail('ErrorInfo.domain is autoagentprotocol.org');
  if (info.reason !== code) fail('ErrorInfo.reason is the AAP code');
  const meta = isObj(info.metadata) ? info.metadata : {};
  if (meta.code !== code) fail('the AAP code is duplicated into metadata.code');
  if (meta.error_id !== aap.error_id) fail('metadata.error_id agrees with the payload');
  if (meta.retryable !== String(aap.retryable)) fail('metadata.retryable agrees with the payload, as a string ("false", not false)');
  if (meta.created_at !== aap.created_at) fail('metadata.created_at agrees with the payload');
  const badRequests = entries.filter((e) => isObj(e) && e['@type'] === BAD_REQUEST);
  if (VALIDATION.has(code) && Array.isArray(problems)) {
    if (badRequests.length !== 1) fail(`${code}: one google.rpc.BadRequest mirrors details.errors[]`);
    else {
      const violations = badRequests[0]!.fieldViolations;
      const mirrored = (problems as Obj[]).map((p) => ({ field: p.instanceLocation, description: `${String(p.keyword)}: ${String(p.error)}` }));
      if (JSON.stringify(violations) !== JSON.stringify(mirrored))
        fail(
          `BadRequest.fieldViolations mirror details.errors[] (field = instanceLocation, description = "keyword: error"): ${JSON.stringify(violations)} vs ${JSON.stringify(mirrored)}`,
        );
    }
  }
}

/** "Dealer agents return these in A2A's own error shape, not as a typed aap.error payload." */
function checkA2aError(error: Obj, info: Obj | undefined, fail: (s: string) => void): void {
  if (!isObj(info)) return;
  if (info.domain !== 'a2a-protocol.org') fail('an A2A protocol error has an ErrorInfo with domain a2a-protocol.org');
  if (error.code === -32008) {
    const meta = isObj(info.metadata) ? info.metadata : {};
    const uri = meta.extensionUri;
    if (info.reason !== 'EXTENSION_SUPPORT_REQUIRED') fail('-32008 has reason EXTENSION_SUPPORT_REQUIRED');
    if (typeof uri !== 'string' || uri === '') fail('-32008 metadata.extensionUri names the extension');
    if (meta.requiredHeader !== 'A2A-Extensions') fail('-32008 metadata.requiredHeader is A2A-Extensions');
    const message = String(error.message);
    if (!message.includes('A2A-Extensions')) fail('the -32008 message names the literal header A2A-Extensions');
    if (typeof uri === 'string' && !message.includes(uri)) fail('the -32008 message and metadata name the same extension URI');
  }
}
