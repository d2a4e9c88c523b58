/**
 * Building the journal line of one request: what was asked, by which skill, and the hashes that
 * let the report tell "the same request" apart without storing personal data; what the proxy
 * observed of the reply; and what the engine decided.
 */
import { hash } from 'node:crypto';
import type { ClassifiedRequest } from '../protocol/classify.js';
import { isAapSkill } from '../protocol/codes.js';
import type { FaultRecord, JournalEntry, ReplyErrorRecord, ReplySource } from './entry.js';
import { summarizeError, type JsonRpcError } from '../protocol/envelopes.js';
import { arrivalUlid, newUlid } from '../protocol/ids.js';
import { realValidationProblems } from '../protocol/validation-details.js';
import type { Profile } from '../protocol/codes.js';
import type { CardSignatureState } from '../protocol/card-signature.js';
import { requiredExtensionUri, type ReplyBodyKind } from '../protocol/reply-kind.js';
import { decideOutcome, type LostReply } from './outcome.js';
import { knownValuesOf, redactContactsIn } from '../protocol/secret-text.js';

/** JSON with object keys sorted, so equal data hashes equally whatever the key order. */
function canonicalJson(value: unknown): string {
  // Buyers mostly send keys in one order: data already canonical is written by JSON.stringify itself,
  // and other data by JSON.stringify of a copy with its keys in order; sortedJson covers the rest.
  if (isCanonical(value, 0)) return JSON.stringify(value) ?? 'null';
  const copy = sortedCopy(value, 0);
  return copy === UNSORTABLE ? sortedJson(value) : (JSON.stringify(copy) ?? 'null');
}

const UNSORTABLE = Symbol('unsortable');
/** Keys V8 orders numerically ahead of all others, whatever the insertion order. */
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

/**
 * A copy of plain data whose objects have their keys inserted in sorted order, or UNSORTABLE when
 * JSON.stringify of such a copy would differ from sortedJson (index-like keys, dropped values).
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32) return UNSORTABLE;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = sortedCopy(value[i], depth + 1);
      if (v === UNSORTABLE) return UNSORTABLE;
      out[i] = v;
    }
    return out;
  }
  const keys = sortedKeys(value);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || INDEX_LIKE.test(k)) return UNSORTABLE;
    const copied = sortedCopy(v, depth + 1);
    if (copied === UNSORTABLE) return UNSORTABLE;
    out[k] = copied;
  }
  return out;
}

/**
 * The keys in code-unit order, as Array#sort orders strings. Sorted in place by insertion: the
 * objects of a request have a handful of keys, and the builtin sort allocated a work array each time.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + sortedJson(value[i]);
    return out + ']';
  }
  if (value && typeof value === 'object') {
    const keys = sortedKeys(value);
    let out = '{';
    for (let i = 0; i < keys.length; i++) out += `${i ? ',' : ''}${JSON.stringify(keys[i])}:${sortedJson((value as Record<string, unknown>)[keys[i]!])}`;
    return out + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether JSON.stringify(value) is already what sortedJson writes: plain data whose object keys
 * are in sorted order at every level, with nothing JSON.stringify would drop or convert.
 */
function isCanonical(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'boolean') return true;
  if (type === 'number') return Number.isFinite(value);
  if (type !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (!isCanonical(v, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value as object);
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
    if (!isCanonical((value as Record<string, unknown>)[keys[i]!], depth + 1)) return false;
  }
  return true;
}

export function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value)).slice(0, 16);
}

type RequestSummary = Pick<
  JournalEntry,
  'method' | 'skill' | 'rpc_id' | 'a2a_version' | 'extensions' | 'request_hash' | 'idempotency_key' | 'vehicle' | 'request_problems'
>;

/** The two fields of a line taken from the skill data: what "the same request" means, and where the data breaks the request schemas. */
export interface RequestFacts {
  request_hash: string;
  request_problems?: string[];
}

/** The request facts of a skill's data. */
export function requestFacts(skill: string, skillData: Record<string, unknown> | undefined): RequestFacts {
  const data = skillData ?? {};
  let hashed = data;
  if (skill === 'lead.submit') {
    // The key is kept on its own, so a lead retried under a new key still hashes as the same lead.
    const { idempotency_key: _key, ...lead } = data;
    hashed = lead;
  }
  const facts: RequestFacts = { request_hash: canonicalHash(hashed) };
  // The report's validation-fix check compares these with the problems an earlier reply listed.
  const problems = realValidationProblems(skill, skillData);
  if (problems.length > 0) facts.request_problems = [...new Set(problems.map((p) => p.instanceLocation))];
  return facts;
}

/** A body kept to take the request facts from later is no larger than this: a larger one would cost the ring more than its line. */
export const MAX_BODY_KEPT_FOR_FACTS = 2048;

/**
 * Whether the request facts of this request may be taken when its line is read rather than when
 * it finishes: a small body of any AAP skill but lead.submit, whose body holds a customer's
 * contact and is therefore never kept (src/journal/entry-shape.ts keeps the others' bodies).
 */
export function mayTakeFactsLater(skill: string | undefined, body: Buffer | undefined): body is Buffer {
  return body !== undefined && body.length <= MAX_BODY_KEPT_FOR_FACTS && factsMayWait(skill);
}

/** The skills whose facts may wait: checked again where the entry is built, so a lead's hash is never left out. */
function factsMayWait(skill: string | undefined): boolean {
  return skill !== 'lead.submit' && isAapSkill(skill);
}

/** Adds the request's summary to `summary` in place (the journal line keeps this key order). */
function addRequestSummary(summary: RequestSummary, request: ClassifiedRequest, factsLater: boolean): void {
  summary.a2a_version = request.a2aVersion ?? null;
  if (request.extensions.length) summary.extensions = request.extensions;
  if (request.kind !== 'jsonrpc') return;
  summary.method = request.rpcMethod;
  summary.rpc_id = request.id;
  if (!request.skill) return;
  summary.skill = request.skill;
  // Left out, the facts are put back at these same places when the line is read (entry-shape.ts).
  const facts = factsLater ? undefined : requestFacts(request.skill, request.skillData);
  if (facts) summary.request_hash = facts.request_hash;
  const data = request.skillData ?? {};
  if (request.skill === 'lead.submit' && typeof data.idempotency_key === 'string') summary.idempotency_key = data.idempotency_key;
  if (request.skill === 'inventory.vehicle') {
    const id = data.vin ?? data.stock ?? data.vehicle_id;
    if (typeof id === 'string') summary.vehicle = id;
  }
  if (facts?.request_problems) summary.request_problems = facts.request_problems;
}

/** What the proxy observed of one reply. */
export interface ReplyObservation {
  source: ReplySource;
  error?: JsonRpcError;
  upstreamStatus?: number;
  upstreamMs?: number;
  notes: string[];
  /** The proxy reset, held or cut the reply. */
  lost?: LostReply;
  /** What the body was, when the proxy read it. */
  body?: ReplyBodyKind;
  /** `error` came from an SSE error event. */
  errorInStream?: boolean;
  /** lead.submit only: the status of the dealer's response (`duplicate` for a lead it already had). */
  leadStatus?: string;
  /** An agent card only: what became of its signatures. */
  cardSignatures?: CardSignatureState;
}

/** Where a request stood when it finished: timing, who sent it, and the profile in force. */
export interface RequestCircumstances {
  startedAt: number;
  /** The request's arrival number (nextArrival), which orders the ids of requests that start in the same millisecond. */
  arrival?: number;
  durationMs: number;
  client: string;
  /** How `client` was derived: `ip` or `header:NAME`. */
  clientKey: string;
  status: number;
  aborted: boolean;
  dryRun: boolean;
  profile: Profile;
  extensionUri: string;
  /** The session the request named; undefined for the default session. */
  session?: string;
  /** The replica that served the request (fleet mode). */
  replica?: string;
  /** Who pulled the safety lever, while it is pulled. */
  haltedBy?: string;
  /** The dealer served, when one proxy fronts several. */
  dealer?: string;
  /** Header names whose values are secrets besides the usual ones (--redact-header): looked for in a dealer's error by value. */
  secretHeaders?: readonly string[];
  /** Leave request_hash and request_problems out (mayTakeFactsLater): the journal takes them from the body when a line is read. */
  factsLater?: boolean;
}

/** Past this many bytes an error's `data` is left out of the journal line. */
export const MAX_REPLY_ERROR_BYTES = 4096;
const MAX_KEPT_MESSAGE_CHARS = 300;

/** The error member as the journal keeps it: whole when small, otherwise its code and a shortened message. */
export function boundedReplyError(error: JsonRpcError): ReplyErrorRecord {
  const message = typeof error.message === 'string' ? error.message : String(error.message);
  // A bound on the serialized size settles the common small error without serializing it.
  if (jsonBytesAtMost(error, 0, MAX_REPLY_ERROR_BYTES) <= MAX_REPLY_ERROR_BYTES || Buffer.byteLength(JSON.stringify(error) ?? '') <= MAX_REPLY_ERROR_BYTES) {
    return error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data };
  }
  const kept: ReplyErrorRecord = {
    code: error.code,
    message: message.length > MAX_KEPT_MESSAGE_CHARS ? `${message.slice(0, MAX_KEPT_MESSAGE_CHARS)}…` : message,
  };
  if (error.data !== undefined) kept.data_omitted_bytes = Buffer.byteLength(JSON.stringify(error.data) ?? '');
  return kept;
}

/** What the engine decided, in the journal's terms (the engine's Decision is one). */
export interface DecidedFaults {
  matched: string[];
  fired: string[];
  sentences: string[];
  applied: readonly FaultRecord[];
  /** Rules that matched but could not fire: the shared state they need was unreachable. */
  suspended?: string[];
}

/** Characters whose JSON form may take more than three bytes each: controls (\u00XX) and lone surrogates. */
const WIDE_IN_JSON = /[\u0000-\u001f\ud800-\udfff]/;
/** The longest text JSON.stringify writes for a number (e.g. -0.0000012345678901234567 is 25). */
const MAX_NUMBER_CHARS = 26;

/**
 * An upper bound of the UTF-8 bytes JSON.stringify(value) takes, given up (Infinity) once it
 * passes `budget` or meets anything it cannot bound (a toJSON method, deep nesting): the caller
 * then serializes. Never below the true size, so "bound ≤ limit" proves "size ≤ limit".
 */
function jsonBytesAtMost(value: unknown, depth: number, budget: number): number {
  switch (typeof value) {
    case 'string':
      return 2 + value.length * (WIDE_IN_JSON.test(value) ? 6 : 3);
    case 'number':
    case 'bigint':
      return MAX_NUMBER_CHARS;
    case 'boolean':
      return 5;
    case 'undefined':
    case 'function':
    case 'symbol':
      return 4;
  }
  if (value === null) return 4;
  if (depth > 16 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Infinity;
  let total = 2;
  if (Array.isArray(value)) {
    for (const v of value) {
      total += 1 + jsonBytesAtMost(v, depth + 1, budget - total);
      if (total > budget) return Infinity;
    }
    return total;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    total += 2 + jsonBytesAtMost(k, depth + 1, budget) + jsonBytesAtMost((value as Record<string, unknown>)[k], depth + 1, budget - total);
    if (total > budget) return Infinity;
  }
  return total;
}

/** Start times as RFC 3339 text with milliseconds: the text up to the second is kept for the current second. */
let isoSecond = NaN;
let isoPrefix = '';
function isoOf(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoSecond = second;
  }
  const millis = ms - second * 1000;
  return `${isoPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

const hundredths = (ms: number) => Math.round(ms * 100) / 100;

/** The journal line of one finished request. */
export function buildJournalEntry(request: ClassifiedRequest, decision: DecidedFaults, reply: ReplyObservation, at: RequestCircumstances): JournalEntry {
  // Assigned one by one, not spread: the line keeps its key order and no intermediate object is made.
  const entry = {
    id: at.arrival === undefined ? newUlid(at.startedAt) : arrivalUlid(at.startedAt, at.arrival),
    ts: isoOf(at.startedAt),
    t: at.startedAt,
    duration_ms: hundredths(at.durationMs),
    client: at.client,
  } as JournalEntry;
  if (at.session !== undefined) entry.session = at.session;
  if (at.replica !== undefined) entry.replica = at.replica;
  if (at.dealer !== undefined) entry.dealer = at.dealer;
  entry.client_key = at.clientKey;
  entry.http_method = request.httpMethod;
  entry.path = request.path;
  entry.kind = request.kind;
  addRequestSummary(entry, request, at.factsLater === true && factsMayWait(request.skill));
  entry.matched = decision.matched;
  entry.fired = decision.fired;
  entry.effects = decision.sentences;
  if (decision.applied.length) entry.faults = decision.applied.map(({ rule, effect }) => ({ rule, effect }));
  entry.status = at.status;
  entry.source = reply.source;
  entry.profile = at.profile;
  entry.extension_uri = at.extensionUri;
  entry.dry_run = at.dryRun;
  if (at.haltedBy !== undefined) entry.halted_by = at.haltedBy;
  const { outcome, cause } = decideOutcome({
    lost: reply.lost,
    aborted: at.aborted,
    status: at.status,
    sawRpcError: reply.error !== undefined,
    body: reply.body,
  });
  entry.outcome = outcome;
  if (cause) entry.unknown_cause = cause;
  if (reply.error) {
    const summary = summarizeError(reply.error);
    entry.rpc_code = summary.rpcCode;
    if (summary.code) entry.error_code = summary.code;
    if (summary.errorId) entry.error_id = summary.errorId;
    if (summary.retryable !== undefined) entry.retryable = summary.retryable;
    // Buyers may be told in seconds; the journal keeps one unit.
    const details = summary.details;
    const retryAfter = details?.retry_after_ms ?? (typeof details?.retry_after_seconds === 'number' ? details.retry_after_seconds * 1000 : undefined);
    if (typeof retryAfter === 'number') entry.retry_after_ms = retryAfter;
    if (summary.listedProblems !== undefined) entry.listed_problems = summary.listedProblems;
    const kept = boundedReplyError(reply.error);
    // The dealer's own words may echo a customer's contact or the buyer's token, under any name; the proxy's and the rules' never do.
    entry.reply_error =
      reply.source === 'dealer'
        ? (redactContactsIn(kept, knownValuesOf(request.headers, request.body, request.skillData, at.secretHeaders)) as ReplyErrorRecord)
        : kept;
    const required = requiredExtensionUri(reply.error);
    if (required !== undefined) entry.required_extension = required;
    if (reply.errorInStream) entry.error_in_stream = true;
  }
  if (reply.leadStatus !== undefined) entry.lead_status = reply.leadStatus;
  if (reply.cardSignatures !== undefined) entry.card_signatures = reply.cardSignatures;
  if (reply.upstreamStatus !== undefined) entry.upstream_status = reply.upstreamStatus;
  if (reply.upstreamMs !== undefined) entry.upstream_ms = hundredths(reply.upstreamMs);
  if (reply.notes.length) entry.notes = reply.notes;
  if (decision.suspended?.length) entry.suspended = decision.suspended;
  if (at.aborted) entry.aborted = true;
  return entry;
}
