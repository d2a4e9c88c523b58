/**
 * Building the journal line of one request: what was asked, by which skill, and the hashes that
 * let the report tell "the same request" apart without storing personal data; what the proxy
 * observed of the reply; and what the engine decided.
 */
import { hash } from 'node:crypto';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { FaultRecord, JournalEntry, ReplyErrorRecord, ReplySource } from './entry.js';
import { summarizeError, type JsonRpcError } from '../protocol/envelopes.js';
import { newUlid } from '../protocol/ids.js';
import type { Profile } from '../protocol/codes.js';
import { requiredExtensionUri, type ReplyBodyKind } from '../protocol/reply-kind.js';
import { decideOutcome, type LostReply } from './outcome.js';

/** JSON with object keys sorted, so equal data hashes equally whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value)).slice(0, 16);
}

type RequestSummary = Pick<JournalEntry, 'method' | 'skill' | 'rpc_id' | 'a2a_version' | 'extensions' | 'request_hash' | 'idempotency_key' | 'vehicle'>;

export function requestSummary(request: ClassifiedRequest): RequestSummary {
  const summary: RequestSummary = {
    a2a_version: request.a2aVersion ?? null,
  };
  if (request.extensions.length) summary.extensions = request.extensions;
  if (request.kind !== 'jsonrpc') return summary;
  summary.method = request.rpcMethod;
  summary.rpc_id = request.id;
  if (!request.skill) return summary;
  summary.skill = request.skill;
  const data = request.skillData ?? {};
  if (request.skill === 'lead.submit') {
    // The key is kept on its own, so a lead retried under a new key still hashes as the same lead.
    const { idempotency_key: key, ...lead } = data;
    summary.request_hash = canonicalHash(lead);
    if (typeof key === 'string') summary.idempotency_key = key;
  } else {
    summary.request_hash = canonicalHash(data);
  }
  if (request.skill === 'inventory.vehicle') {
    const id = data.vin ?? data.stock ?? data.vehicle_id;
    if (typeof id === 'string') summary.vehicle = id;
  }
  return summary;
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
}

/** Where a request stood when it finished: timing, who sent it, and the profile in force. */
export interface RequestCircumstances {
  startedAt: number;
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
}

/** Past this many bytes an error's `data` is left out of the journal line. */
export const MAX_REPLY_ERROR_BYTES = 4096;
const MAX_KEPT_MESSAGE_CHARS = 300;

/** The error member as the journal keeps it: whole when small, otherwise its code and a shortened message. */
export function boundedReplyError(error: JsonRpcError): ReplyErrorRecord {
  const message = typeof error.message === 'string' ? error.message : String(error.message);
  const size = Buffer.byteLength(JSON.stringify(error) ?? '');
  if (size <= MAX_REPLY_ERROR_BYTES) return error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data };
  const kept: ReplyErrorRecord = { code: error.code, message: message.length > MAX_KEPT_MESSAGE_CHARS ? `${message.slice(0, MAX_KEPT_MESSAGE_CHARS)}…` : message };
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

const hundredths = (ms: number) => Math.round(ms * 100) / 100;

/** The journal line of one finished request. */
export function buildJournalEntry(
  request: ClassifiedRequest,
  decision: DecidedFaults,
  reply: ReplyObservation,
  at: RequestCircumstances,
): JournalEntry {
  const entry: JournalEntry = {
    id: newUlid(at.startedAt),
    ts: new Date(at.startedAt).toISOString(),
    t: at.startedAt,
    duration_ms: hundredths(at.durationMs),
    client: at.client,
    ...(at.session !== undefined ? { session: at.session } : {}),
    ...(at.replica !== undefined ? { replica: at.replica } : {}),
    client_key: at.clientKey,
    http_method: request.httpMethod,
    path: request.path,
    kind: request.kind,
    ...requestSummary(request),
    matched: decision.matched,
    fired: decision.fired,
    effects: decision.sentences,
    ...(decision.applied.length ? { faults: decision.applied.map(({ rule, effect }) => ({ rule, effect })) } : {}),
    status: at.status,
    source: reply.source,
    profile: at.profile,
    extension_uri: at.extensionUri,
    dry_run: at.dryRun,
  };
  const { outcome, cause } = decideOutcome({ lost: reply.lost, aborted: at.aborted, status: at.status, sawRpcError: reply.error !== undefined, body: reply.body });
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
    entry.reply_error = boundedReplyError(reply.error);
    const required = requiredExtensionUri(reply.error);
    if (required !== undefined) entry.required_extension = required;
    if (reply.errorInStream) entry.error_in_stream = true;
  }
  if (reply.upstreamStatus !== undefined) entry.upstream_status = reply.upstreamStatus;
  if (reply.upstreamMs !== undefined) entry.upstream_ms = hundredths(reply.upstreamMs);
  if (reply.notes.length) entry.notes = reply.notes;
  if (decision.suspended?.length) entry.suspended = decision.suspended;
  if (at.aborted) entry.aborted = true;
  return entry;
}
