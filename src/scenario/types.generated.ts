/* Generated from schema/scenario.schema.json by scripts/gen-scenario-types.mjs. Do not edit by hand. */

/**
 * AAP skill id (dealer.information, inventory.facets, inventory.search, inventory.vehicle, lead.submit), or a list of them of which any may match.
 *
 * @minItems 1
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "SkillSelector".
 */
export type SkillSelector = string | [string, ...string[]];
/**
 * JSON-RPC method (SendMessage, SendStreamingMessage, …), or a list of them of which any may match.
 *
 * @minItems 1
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "MethodSelector".
 */
export type MethodSelector = string | [string, ...string[]];
/**
 * An exact header value, {regex: …} or {absent: true}.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "HeaderMatcher".
 */
export type HeaderMatcher = string | HeaderCondition;
/**
 * A dealer name: letters, digits, '-' and '_', 1-32 characters (it is a path segment of the dealer's base URL).
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "DealerName".
 */
export type DealerName = string;
/**
 * Terminal: answer with the typed AAP error envelope of the active profile. Either a bare code (`error: RATE_LIMITED`, with optional sibling keys retryable, message, details, retry_after_ms on the rule) or an object holding the code and those keys.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "ErrorEffect".
 */
export type ErrorEffect = AapCode | ErrorSpec;
/**
 * One of the 12 AAP error codes.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "AapCode".
 */
export type AapCode =
  | "UNSUPPORTED_SKILL"
  | "SCHEMA_VALIDATION_FAILED"
  | "MISSING_REQUIRED_FIELD"
  | "INVALID_CONDITION"
  | "VEHICLE_NOT_FOUND"
  | "VEHICLE_UNAVAILABLE"
  | "CONTACT_CONSENT_REQUIRED"
  | "INVALID_CONSENT"
  | "APPOINTMENT_TIME_UNAVAILABLE"
  | "IDEMPOTENCY_CONFLICT"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR";
/**
 * Terminal: a broken transport. reset: the connection is destroyed; hang: no answer until the buyer gives up (bounded by the proxy's hang limit); malformed_json: a 200 whose body is not valid JSON; {truncate_bytes: N}: the real reply cut after N bytes; {hang_ms: N}: hang, then reset, after N ms.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "NetworkEffect".
 */
export type NetworkEffect = ("reset" | "hang" | "malformed_json") | NetworkSpec;
/**
 * Modifier: RFC 6902 JSON Patch operations applied to the dealer's JSON response (e.g. /result/message/parts/0/data/data/vehicles/0/status). A response that is not JSON, or a patch that does not apply, is forwarded unchanged and the journal says why.
 *
 * @minItems 1
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "PatchEffect".
 */
export type PatchEffect = [PatchOperation, ...PatchOperation[]];

/**
 * An aap-chaos scenario: an ordered list of rules that decide which faults a buyer agent meets. Rules are evaluated in order; every rule that matches and fires adds its modifiers (delay, patch, envelope, stream, bandwidth, card); the first terminal effect (error, a2a_error, require, rate_limit, http, network) ends evaluation.
 */
export interface Scenario {
  /**
   * Optional pointer to this schema, for editors that read it from the document.
   */
  $schema?: string;
  /**
   * Name of the scenario, shown in status, journal and report. Defaults to the file name without its extension.
   */
  scenario?: string;
  /**
   * One or two sentences on what the buyer meets under this scenario.
   */
  description?: string;
  /**
   * Envelope profile of synthesized errors: "1.3" (the frozen release), "2.0" (the draft error contract) or auto (picked from the dealer's agent card extension URI). Quote the versions in YAML.
   */
  profile?: "auto" | "1.3" | "2.0";
  /**
   * Seed of the one random generator behind every random choice (probability, jitter, distributions, shuffles). Same seed and same requests give the same faults. The --seed option overrides it; with neither, a random seed is chosen and printed.
   */
  seed?: number;
  /**
   * Upper bound on faults being injected at the same time (a hanging or delayed request counts until it ends). A rule that would fire past the cap is skipped and the request passes through. No cap when absent.
   */
  max_active_faults?: number;
  report?: ReportThresholds;
  /**
   * Halting conditions in AAP terms, each over a sliding window of the traffic this replica serves. When one is breached the safety lever is pulled for the whole fleet (every replica goes to dry run and refuses new scenarios until it is released), with halted_by: guardrail <name>.
   *
   * @maxItems 32
   */
  guardrails?: Guardrail[];
  /**
   * Rules, evaluated in order for every request.
   */
  rules?: Rule[];
}
/**
 * Thresholds the buyer-behaviour report grades against.
 */
export interface ReportThresholds {
  /**
   * How much earlier than retry_after_ms a retry may come and still count as honouring it.
   */
  retry_after_tolerance_ms?: number;
  /**
   * Retries of one retryable request allowed before the buyer is judged to hammer the dealer.
   */
  backoff_max_retries?: number;
  /**
   * Times a buyer may ask again for a vehicle it was told is unavailable or not found.
   */
  same_vehicle_max_repeats?: number;
  /**
   * Requests tolerated inside a retry_after window before the buyer is judged to ignore it.
   */
  storm_tolerance?: number;
  /**
   * With several dealers and one of them slow, the time the buyer's run (its first request to its last reply, or the exam's buyer run time) may take before slow-dealer fails. Default 10000.
   */
  slow_dealer_budget_ms?: number;
}
/**
 * One halting condition: a metric, its limit (min for lead_submit_success, max for the others) and its window.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "Guardrail".
 */
export interface Guardrail {
  /**
   * Names the guardrail in /status, the journal of changes, the metric aap_chaos_guardrail_breaches_total{guardrail} and the audit log.
   */
  name: string;
  /**
   * lead_submit_success: share of lead.submit requests the buyer got a JSON-RPC result for (needs min). duplicate_leads: lead.submit replies with status duplicate from the dealer (needs max, usually 0). retry_storm_ratio: for the busiest buyer, the share of its requests that repeat one it sent earlier in the window unchanged (needs max). p99_latency_ms: the 99th percentile of buyer-visible duration for one skill (needs skill and max).
   */
  metric: "lead_submit_success" | "duplicate_leads" | "retry_storm_ratio" | "p99_latency_ms";
  /**
   * Breached when the metric falls below this (lead_submit_success, 0 to 1).
   */
  min?: number;
  /**
   * Breached when the metric rises above this.
   */
  max?: number;
  /**
   * The AAP skill p99_latency_ms measures, e.g. inventory.search.
   */
  skill?: string;
  /**
   * Length of the sliding window, in seconds.
   */
  window_s?: number;
  /**
   * Requests the window must hold before a share, ratio or percentile is judged (counts of duplicate leads are judged from the first).
   */
  min_requests?: number;
  /**
   * exclude (default): requests a fault was injected into on purpose are left out, so the guardrail watches the dealer and the buyer, not the scenario itself. include: every request counts, as the buyer saw it.
   */
  faults?: "exclude" | "include";
}
/**
 * One rule: when the request matches and the `when` conditions fire, its effects apply. At most one terminal effect (error, a2a_error, require, rate_limit, http, network) per rule.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "Rule".
 */
export interface Rule {
  /**
   * Unique name of the rule within the scenario; used by the journal, the admin API and the x-aap-chaos header.
   */
  id: string;
  /**
   * What this rule is for, in plain words.
   */
  description?: string;
  /**
   * A disabled rule is kept (and can be switched on through the admin API) but never fires.
   */
  enabled?: boolean;
  match?: Match;
  /**
   * Who is counted separately for `when` counters and rate limits: ip (the client address, default), skill, or header:NAME (the value of that request header; requests without it share one bucket).
   */
  key?: string;
  when?: When;
  error?: ErrorEffect;
  /**
   * With `error: CODE`: overrides the code's retryable default in the AAP payload.
   */
  retryable?: boolean;
  /**
   * With `error: CODE` or `a2a_error`: the human message of the error.
   */
  message?: string;
  details?: ErrorDetails1;
  /**
   * With `error: CODE`: the retry hint put in details.retry_after_ms. RATE_LIMITED without any hint gets retry_after_ms 1000.
   */
  retry_after_ms?: number;
  /**
   * With `error: CODE`: the retry hint put in details.retry_after_seconds (whole seconds), for a rule that prefers seconds to retry_after_ms.
   */
  retry_after_seconds?: number;
  /**
   * Terminal: answer with an A2A protocol error in A2A's own shape, by name (TASK_NOT_FOUND -32001 … VERSION_NOT_SUPPORTED -32009, PARSE_ERROR -32700 … INTERNAL_ERROR -32603). `message` overrides its message.
   */
  a2a_error?:
    | "TASK_NOT_FOUND"
    | "TASK_NOT_CANCELABLE"
    | "PUSH_NOTIFICATION_NOT_SUPPORTED"
    | "UNSUPPORTED_OPERATION"
    | "CONTENT_TYPE_NOT_SUPPORTED"
    | "INVALID_AGENT_RESPONSE"
    | "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    | "EXTENSION_SUPPORT_REQUIRED"
    | "VERSION_NOT_SUPPORTED"
    | "PARSE_ERROR"
    | "INVALID_REQUEST"
    | "METHOD_NOT_FOUND"
    | "INVALID_PARAMS"
    | "INTERNAL_ERROR";
  require?: RequireEffect;
  rate_limit?: RateLimitEffect;
  http?: HttpEffect;
  network?: NetworkEffect;
  delay?: DelayEffect;
  patch?: PatchEffect;
  envelope?: EnvelopeEffect;
  stream?: StreamEffect;
  bandwidth?: BandwidthEffect;
  card?: CardEffect;
}
/**
 * Conditions on the request; all must hold. Omit `match` to match every request.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "Match".
 */
export interface Match {
  skill?: SkillSelector;
  method?: MethodSelector;
  /**
   * HTTP request path without the query string, compared exactly (e.g. /a2a or /.well-known/agent-card.json).
   */
  path?: string;
  /**
   * Request headers by name (case-insensitive): an exact value, {regex: …}, or {absent: true}.
   */
  headers?: {
    [k: string]: HeaderMatcher;
  };
  /**
   * Tests on the JSON-RPC request body, each addressed by a JSON Pointer; all must hold.
   */
  body?: BodyMatcher[];
  /**
   * The dealer the request is for, by the name given to --dealer NAME=URL (or d1…dN with --mock-dealers N), or a list of names. A rule with dealer never matches in a single-dealer run.
   */
  dealer?: DealerName | [DealerName, ...DealerName[]];
  /**
   * missing: the AAP extension URI is not in A2A-Extensions; present: it is.
   */
  extension?: "missing" | "present";
}
/**
 * The object forms of a header test: exactly one of regex, absent.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "HeaderCondition".
 */
export interface HeaderCondition {
  /**
   * Regular expression (RE2 syntax, matched in linear time) the header value must contain a match of (add ^…$ to anchor).
   */
  regex?: string;
  /**
   * true: the header must not be sent at all.
   */
  absent?: true;
}
/**
 * One test on the JSON-RPC request body: a JSON Pointer and exactly one of equals, exists, regex, in.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "BodyMatcher".
 */
export interface BodyMatcher {
  /**
   * RFC 6901 JSON Pointer into the request body, e.g. /params/message/parts/0/data/filters/make/0.
   */
  pointer: string;
  /**
   * The value at the pointer must equal this (deep equality).
   */
  equals?: string | number | boolean | {} | unknown[] | null;
  /**
   * true: something must be at the pointer; false: nothing may be.
   */
  exists?: boolean;
  /**
   * The value at the pointer must be a string containing a match of this regular expression (RE2 syntax, matched in linear time).
   */
  regex?: string;
  /**
   * The value at the pointer must equal one of these.
   *
   * @minItems 1
   */
  in?: [unknown, ...unknown[]];
}
/**
 * When a matching request fires the rule; all given conditions combine. Counters are per rule and per key.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "When".
 */
export interface When {
  /**
   * Chance (0 to 1) that a matching request fires the rule, drawn from the seeded generator.
   */
  probability?: number;
  /**
   * Let the first N matching requests through; fire from request N+1 on.
   */
  after?: number;
  /**
   * Fire on every Nth matching request only (N, 2N, …, counted after `after`).
   */
  every?: number;
  /**
   * Fire at most N times, then never again until counters are reset.
   */
  times?: number;
  /**
   * Fire only from this many seconds after the scenario was loaded.
   */
  from_s?: number;
  /**
   * Fire only until this many seconds after the scenario was loaded; must be greater than from_s.
   */
  until_s?: number;
}
/**
 * The object form of `error`.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "ErrorSpec".
 */
export interface ErrorSpec {
  code: AapCode;
  /**
   * Overrides the code's retryable default in the AAP payload.
   */
  retryable?: boolean;
  /**
   * Human message of the error; the code's default message when absent.
   */
  message?: string;
  details?: ErrorDetails;
  /**
   * Retry hint put in details.retry_after_ms. RATE_LIMITED without any hint gets retry_after_ms 1000.
   */
  retry_after_ms?: number;
  /**
   * Retry hint put in details.retry_after_seconds (whole seconds), for a rule that prefers seconds to retry_after_ms.
   */
  retry_after_seconds?: number;
}
/**
 * The AAP payload's details object. For the validation codes, `errors` is derived from the request when absent (see docs/scenarios.md).
 */
export interface ErrorDetails {
  [k: string]: unknown;
}
/**
 * With `error: CODE`: the AAP payload's details object. For the validation codes, `errors` is derived from the request when absent (see docs/scenarios.md).
 */
export interface ErrorDetails1 {
  [k: string]: unknown;
}
/**
 * Terminal when unmet: the 2.0 header policy. extension: true answers -32008 when the AAP extension URI is missing from A2A-Extensions; version answers -32009 when A2A-Version is absent, empty or not this version.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "RequireEffect".
 */
export interface RequireEffect {
  /**
   * true: the AAP extension must be activated in A2A-Extensions.
   */
  extension?: boolean;
  /**
   * The A2A-Version the request must carry, e.g. "1.0" (quote it in YAML).
   */
  version?: string;
}
/**
 * Terminal when exceeded: at most `limit` requests per `window_ms` per key (sliding window); past that, RATE_LIMITED with retry_after_ms set to the true time until the next request would be allowed.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "RateLimitEffect".
 */
export interface RateLimitEffect {
  /**
   * Requests allowed in any window.
   */
  limit: number;
  /**
   * Window length in milliseconds.
   */
  window_ms: number;
}
/**
 * Terminal: a raw HTTP reply that is not JSON-RPC (a gateway's HTML 502, a 503 with Retry-After, an empty 200).
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "HttpEffect".
 */
export interface HttpEffect {
  /**
   * HTTP status code.
   */
  status: number;
  /**
   * Response headers by name.
   */
  headers?: {
    [k: string]: string | number;
  };
  /**
   * Response body, sent as is (empty when absent).
   */
  body?: string;
}
/**
 * The object forms of `network`: exactly one of truncate_bytes, hang_ms.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "NetworkSpec".
 */
export interface NetworkSpec {
  /**
   * Send only the first N bytes of the reply, then close the connection.
   */
  truncate_bytes?: number;
  /**
   * Hold the request this many milliseconds, then close the connection without an answer.
   */
  hang_ms?: number;
}
/**
 * Modifier: latency before the reply. The delays of every firing rule add up.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "DelayEffect".
 */
export interface DelayEffect {
  /**
   * Base delay in milliseconds (the mean for normal, the median for lognormal).
   */
  ms?: number;
  /**
   * Spread in milliseconds: the half-width for uniform, the standard deviation for normal and lognormal. No effect with fixed.
   */
  jitter_ms?: number;
  /**
   * fixed: exactly ms; uniform (default): ms ± jitter_ms; normal: bell curve around ms; lognormal: mostly near ms with a long tail of slow replies. Never below 0.
   */
  distribution?: "fixed" | "uniform" | "normal" | "lognormal";
}
/**
 * One RFC 6902 operation. add, replace and test need value; move and copy need from.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "PatchOperation".
 */
export interface PatchOperation {
  /**
   * The operation.
   */
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  /**
   * RFC 6901 JSON Pointer to the target location.
   */
  path: string;
  /**
   * RFC 6901 JSON Pointer to the source location (move, copy).
   */
  from?: string;
  /**
   * The value to add, replace with, or test against.
   */
  value?: string | number | boolean | {} | unknown[] | null;
}
/**
 * Modifier on error envelopes (synthesized or the dealer's): reorder error.data entries, or add an entry with an unknown @type (for 1.3, unknown fields), to prove the buyer finds the AAP payload by @type.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "EnvelopeEffect".
 */
export interface EnvelopeEffect {
  /**
   * Reorder the error.data entries (seeded).
   */
  shuffle?: boolean;
  /**
   * Add an error.data entry with an unknown @type (1.3: unknown fields in the payload).
   */
  unknown_detail?: boolean;
}
/**
 * Modifier on text/event-stream replies, event by event.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "StreamEffect".
 */
export interface StreamEffect {
  /**
   * Delay before each event, in milliseconds.
   */
  delay_ms?: number;
  /**
   * Close the stream after N events.
   */
  cut_after?: number;
  /**
   * After N events, send an `event: error` frame carrying a JSON-RPC error, then close.
   */
  error_after?: number;
}
/**
 * Modifier: a slow body, sent at most this many bytes per second.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "BandwidthEffect".
 */
export interface BandwidthEffect {
  /**
   * Throughput cap in bytes per second.
   */
  bytes_per_s: number;
}
/**
 * Faults of the agent card (GET /.well-known/agent-card.json); a rule with `card` matches only card requests. delay: latency first; http or malformed_json: a reply instead of the card (not both); stale: an older card instead of the current one; patch: RFC 6902 operations on the card served; signature: a forged, stripped or foreign signature. The interface URLs are still pointed at the proxy after stale and patch (unless --no-rewrite-card), and signatures those changes break are removed, or signed again with --card-signing-key.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "CardEffect".
 */
export interface CardEffect {
  delay?: DelayEffect;
  http?: HttpEffect;
  /**
   * true: a 200 application/json reply whose body stops in the middle of the card.
   */
  malformed_json?: true;
  patch?: PatchEffect;
  stale?: CardStale;
  /**
   * A signature fault (A2A v1.0 card signatures), after the card is otherwise ready: tamper (signed, then changed, so the signature no longer verifies), strip (no signatures at all), unknown-key (signed by a key the JWKS does not hold, its kid made the same way), wrong-alg (a protected header whose alg does not match the key: an HMAC under HS256 keyed with the public key). tamper and wrong-alg sign with the proxy's key (--card-signing-key, or --mock-sign-card for the embedded mock); without one, tamper changes a card the dealer signed and wrong-alg is not applied (the journal says so). unknown-key signs with a throwaway key of the same type as the proxy's (EC P-256 when it has none).
   */
  signature?: "tamper" | "strip" | "unknown-key" | "wrong-alg";
}
/**
 * Serve an older card: exactly one of minutes (the dealer's card as the proxy saw it that many minutes ago; the oldest one seen when none is that old) or card (a fixed copy).
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "CardStale".
 */
export interface CardStale {
  /**
   * How many minutes old the card served is (fractions allowed).
   */
  minutes?: number;
  /**
   * A fixed card to serve instead of the dealer's.
   */
  card?: {};
}
/**
 * Thresholds the buyer-behaviour report grades against.
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "ReportThresholds".
 */
export interface ReportThresholds1 {
  /**
   * How much earlier than retry_after_ms a retry may come and still count as honouring it.
   */
  retry_after_tolerance_ms?: number;
  /**
   * Retries of one retryable request allowed before the buyer is judged to hammer the dealer.
   */
  backoff_max_retries?: number;
  /**
   * Times a buyer may ask again for a vehicle it was told is unavailable or not found.
   */
  same_vehicle_max_repeats?: number;
  /**
   * Requests tolerated inside a retry_after window before the buyer is judged to ignore it.
   */
  storm_tolerance?: number;
  /**
   * With several dealers and one of them slow, the time the buyer's run (its first request to its last reply, or the exam's buyer run time) may take before slow-dealer fails. Default 10000.
   */
  slow_dealer_budget_ms?: number;
}
/**
 * The AAP payload's details object: free-form, except for the keys the seed gives a meaning (errors: validation problems, mirrored by the 2.0 google.rpc.BadRequest; retry_after_ms / retry_after_seconds: retry hints).
 *
 * This interface was referenced by `Scenario`'s JSON-Schema
 * via the `definition` "ErrorDetails".
 */
export interface ErrorDetails2 {
  [k: string]: unknown;
}
