/**
 * One journal line: everything decided and observed for one buyer request.
 * The report grades buyers from these lines alone, so every field it needs lives here.
 * No credentials and no lead.submit personal data ever appear: payloads are reduced to hashes.
 */
import type { Profile } from '../protocol/codes.js';
import type { JsonRpcId } from '../protocol/envelopes.js';
import type { Violation } from '../protocol/conformance/rules.js';
import type { CardSignatureState } from '../protocol/card-signature.js';
import type { ReplyOutcome, UnknownCause } from './outcome.js';

export type ReplySource =
  | 'dealer' // the dealer's own reply, possibly modified (delay, patch, envelope, stream, bandwidth)
  | 'injected' // a terminal effect answered instead of the dealer
  | 'proxy'; // the proxy's own reply: the dealer could not be reached

export interface JournalEntry {
  /** ULID; sortable, also the cursor for `GET /journal?since=`. */
  id: string;
  /** Start time, RFC 3339 with milliseconds. */
  ts: string;
  /** Milliseconds since the Unix epoch at start (what the report computes gaps with). */
  t: number;
  duration_ms: number;
  /** The client key: the buyer's address, or `key:` + 12 hex of a keyed hash when it comes from a header. */
  client: string;
  /** The session the request named in the session header; absent for the default session. */
  session?: string;
  /** The replica that served the request, in fleet mode (`--replica-id`); absent otherwise. */
  replica?: string;
  /** The dealer's name when one proxy fronts several (`--dealer NAME=URL`, `--mock-dealers N`); absent with one dealer. */
  dealer?: string;
  /** Where `client` came from: `ip` or `header:NAME` (the report says which it grouped by). */
  client_key?: string;
  http_method: string;
  path: string;
  /** classification of the body: jsonrpc | not-json | not-jsonrpc | batch | oversized | none */
  kind: string;
  method?: string;
  skill?: string;
  rpc_id?: JsonRpcId;
  a2a_version?: string | null;
  extensions?: string[];
  /** Canonical hash of the skill DataPart's `data` (what "the same request" means). */
  request_hash?: string;
  /** lead.submit only. */
  idempotency_key?: string;
  /** lead.submit only: the status of the dealer's lead response (`duplicate` when it already had the lead). */
  lead_status?: string;
  /** inventory.vehicle only: the identifier asked for (vin, stock or vehicle_id). */
  vehicle?: string;
  /** Rule ids whose match held. */
  matched: string[];
  /** Rule ids that fired (match and when held). */
  fired: string[];
  /** One sentence per effect applied, e.g. "RATE_LIMITED, retry after 2000 ms". */
  effects: string[];
  /** Each effect that really acted, by rule (`header:CODE` when forced by the header) and effect key; absent when none did. */
  faults?: FaultRecord[];
  /** HTTP status sent to the buyer (0 when no status line reached it: a reset, or the buyer left before the head). */
  status: number;
  source: ReplySource;
  /** What the buyer learned: a JSON-RPC result, a JSON-RPC error, or nothing it can rely on. */
  outcome?: ReplyOutcome;
  /** Why the outcome is unknown to the buyer (only with `outcome: unknown`). */
  unknown_cause?: UnknownCause;
  /** True when the error fields come from an error event inside an SSE stream (the last one). */
  error_in_stream?: boolean;
  /** The envelope profile in force for this request. */
  profile?: Profile;
  /** The AAP extension URI in force for this request (what -32008 names). */
  extension_uri?: string;
  /** The URI a -32008 reply named, exactly as sent. */
  required_extension?: string;
  /** JSON-RPC error code of the reply, when it was an error envelope. */
  rpc_code?: number;
  /** AAP code (or A2A reason) of the reply's error. */
  error_code?: string;
  error_id?: string;
  retryable?: boolean;
  retry_after_ms?: number;
  /**
   * A validation error's `details.errors[]` (or BadRequest field violations): the
   * `instanceLocation` of every problem it listed, so the report can tell whether the next
   * request fixed them all.
   */
  listed_problems?: string[];
  /**
   * Where this skill request breaks the AAP request schemas, as the mock dealer would list it
   * (`instanceLocation`s); absent when the payload is valid.
   */
  request_problems?: string[];
  upstream_status?: number;
  upstream_ms?: number;
  /** Rules that did not fire because the shared state store could not be reached (fleet mode). */
  suspended?: string[];
  /** Why a modifier could not apply (e.g. "patch not applied: response is not JSON"). */
  notes?: string[];
  dry_run: boolean;
  /** While the safety lever is pulled: who or what pulled it (`guardrail <name>` for a guardrail). */
  halted_by?: string;
  /** True when the buyer went away before the reply was complete. */
  aborted?: boolean;
  /**
   * The JSON-RPC `error` member of the reply, as the proxy saw it, so a person can read the
   * envelope the buyer got. Bounded: past 4 KiB only `code` and a shortened `message` are kept.
   */
  reply_error?: ReplyErrorRecord;
  /**
   * An agent-card fetch only: what became of the card's signatures. `kept` (the dealer's still
   * cover the card served), `removed` (the proxy's changes broke them; no key to sign again),
   * `signed` (signed with --card-signing-key), or the signature fault that acted (`tamper`,
   * `strip`, `unknown-key`, `wrong-alg`). Absent when the card served carries no signature.
   */
  card_signatures?: CardSignatureState;
  /** With --check-dealer: the rules the dealer's reply broke ([] when it was checked and kept them all). */
  conformance?: Violation[];
}

/** The session of requests that name none. */
export const DEFAULT_SESSION = 'default';

export interface FaultRecord {
  rule: string;
  effect: string;
}

/** What is told of every finished request: the journal, the metrics and the event hub. */
export interface RequestObserver {
  /**
   * `factsFrom`: the request's body, given when the entry was built without its request facts
   * (`request_hash` and `request_problems`) so that they can be taken from it later; that happens
   * only when no observer reads them or the line's text as the request finishes.
   */
  onRequestDone(entry: JournalEntry, factsFrom?: Buffer): void;
  /**
   * Whether this observer reads the entry's request facts or its text as the request finishes.
   * An observer without this method is taken to: only when none does are the facts left for later.
   */
  readsWholeEntry?(): boolean;
}

export interface ReplyErrorRecord {
  code: number;
  message: string;
  data?: unknown;
  /** Serialized size of the omitted `data`, when it was too large to keep. */
  data_omitted_bytes?: number;
}
