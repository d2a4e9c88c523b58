/**
 * The seed's rules about what a dealer sends, as data: a stable id, MUST or SHOULD, the part of
 * the exchange it looks at, the profiles it applies under, and the rule in one sentence of our
 * own words. The functions beside this file test them; docs/conformance.md lists them all.
 */
import type { Profile } from '../codes.js';

export type Severity = 'MUST' | 'SHOULD';
export type RuleScope = 'card' | 'reply' | 'success' | 'error' | 'header' | 'sse';

export interface ConformanceRule {
  id: string;
  severity: Severity;
  scope: RuleScope;
  /** Profiles the rule applies under; both when absent. */
  profiles?: readonly Profile[];
  /** Short name, as the tables print it. */
  title: string;
  /** What the seed asks, in one sentence. */
  rule: string;
}

const only20 = ['2.0'] as const;

export const CONFORMANCE_RULES = [
  // The agent card
  {
    id: 'AAP-CARD-001',
    severity: 'MUST',
    scope: 'card',
    title: 'card has the A2A v1.0 required fields',
    rule: 'The card carries name, description, supportedInterfaces, version, capabilities, defaultInputModes, defaultOutputModes and skills, and every skill an id, name, description and tags.',
  },
  {
    id: 'AAP-CARD-002',
    severity: 'MUST',
    scope: 'card',
    title: 'exactly one AAP extension',
    rule: 'capabilities.extensions lists exactly one AAP extension entry, whose uri names the AAP version the dealer serves.',
  },
  {
    id: 'AAP-CARD-003',
    severity: 'MUST',
    scope: 'card',
    profiles: only20,
    title: 'AAP extension is required',
    rule: 'Under 2.0 the AAP extension entry says required: true, so buyers know they must activate it.',
  },
  {
    id: 'AAP-CARD-004',
    severity: 'MUST',
    scope: 'card',
    title: 'skills are AAP skills',
    rule: 'skills[] declares at least one skill, and every id is one of the five AAP skills.',
  },
  {
    id: 'AAP-CARD-005',
    severity: 'MUST',
    scope: 'card',
    profiles: only20,
    title: 'AAP media types',
    rule: 'Under 2.0 defaultInputModes and defaultOutputModes name application/vnd.autoagent.* media types, not bare application/json.',
  },
  {
    id: 'AAP-CARD-006',
    severity: 'MUST',
    scope: 'card',
    title: 'a JSONRPC interface',
    rule: 'supportedInterfaces[] has an entry with protocolBinding JSONRPC and a url: JSON-RPC is the only AAP transport.',
  },
  {
    id: 'AAP-CARD-007',
    severity: 'MUST',
    scope: 'card',
    title: 'card signatures verify',
    rule: 'A card that carries signatures carries one that verifies: a JWS whose protected header names alg, kid and typ, over the RFC 8785 canonical card, by a trusted key (A2A v1.0 card signatures; checked by aap-chaos check --card-key).',
  },
  // Every reply
  {
    id: 'AAP-RPC-001',
    severity: 'MUST',
    scope: 'reply',
    title: 'JSON-RPC 2.0 response',
    rule: 'A reply is one JSON-RPC 2.0 response object: jsonrpc "2.0" and exactly one of result or error.',
  },
  {
    id: 'AAP-RPC-002',
    severity: 'MUST',
    scope: 'reply',
    title: 'id echoed with its type',
    rule: 'The reply id equals the request id, with the same JSON type (1 is not "1").',
  },
  // Success replies
  {
    id: 'AAP-OK-001',
    severity: 'MUST',
    scope: 'success',
    title: 'result.message from the agent',
    rule: 'A skill call answers with result.message (message in, message out) whose role is ROLE_AGENT and which has a messageId of its own.',
  },
  {
    id: 'AAP-OK-002',
    severity: 'MUST',
    scope: 'success',
    profiles: only20,
    title: 'contextId present',
    rule: 'Under 2.0 the reply message carries a non-empty contextId.',
  },
  {
    id: 'AAP-OK-003',
    severity: 'MUST',
    scope: 'success',
    title: 'response DataPart',
    rule: 'The reply message has a DataPart whose data.type is the requested skill followed by ".response".',
  },
  {
    id: 'AAP-OK-004',
    severity: 'MUST',
    scope: 'success',
    title: 'payload matches the response schema',
    rule: "The payload in data.data matches the skill's response schema (for example, every listed vehicle has a status).",
  },
  // Error replies
  { id: 'AAP-ERR-001', severity: 'MUST', scope: 'error', title: 'error code and message', rule: 'error.code is an integer and error.message a string.' },
  {
    id: 'AAP-ERR-002',
    severity: 'MUST',
    scope: 'error',
    title: "the profile's error.data shape",
    rule: 'A skill-level error carries error.data in the shape of the profile: under 2.0 an array of objects that each carry @type, under 1.3 the bare aap.error object.',
  },
  {
    id: 'AAP-ERR-003',
    severity: 'MUST',
    scope: 'error',
    profiles: only20,
    title: 'ErrorInfo must be first',
    rule: 'Under 2.0 the error.data array of an AAP error starts with a google.rpc.ErrorInfo.',
  },
  {
    id: 'AAP-ERR-004',
    severity: 'MUST',
    scope: 'error',
    profiles: only20,
    title: 'ErrorInfo reason and domain',
    rule: 'That ErrorInfo has reason set to the AAP code and domain autoagentprotocol.org.',
  },
  {
    id: 'AAP-ERR-005',
    severity: 'MUST',
    scope: 'error',
    profiles: only20,
    title: 'ErrorInfo metadata are strings',
    rule: 'ErrorInfo.metadata is a map of strings holding code, error_id, retryable ("true"/"false") and created_at, the same values as the AAP payload.',
  },
  {
    id: 'AAP-ERR-006',
    severity: 'MUST',
    scope: 'error',
    title: 'typed aap.error payload',
    rule: 'A skill-level error carries the typed aap.error payload (under 2.0 found by its @type) with type, error_id, one of the 12 codes, message and created_at.',
  },
  { id: 'AAP-ERR-007', severity: 'MUST', scope: 'error', title: 'retryable is a boolean', rule: "The payload's retryable is a JSON boolean, set truthfully." },
  {
    id: 'AAP-ERR-008',
    severity: 'MUST',
    scope: 'error',
    title: 'JSON-RPC code per the code table',
    rule: 'error.code is the JSON-RPC code the code table gives the AAP code under the profile (RATE_LIMITED is -32000 under 2.0 and -32002 under 1.3).',
  },
  {
    id: 'AAP-ERR-009',
    severity: 'MUST',
    scope: 'error',
    title: 'details.errors[] on validation codes',
    rule: 'SCHEMA_VALIDATION_FAILED, MISSING_REQUIRED_FIELD and INVALID_CONDITION carry details.errors[], each entry with instanceLocation, keyword and error.',
  },
  {
    id: 'AAP-ERR-010',
    severity: 'SHOULD',
    scope: 'error',
    profiles: only20,
    title: 'BadRequest mirrors details.errors[]',
    rule: 'Under 2.0 a validation error also carries a google.rpc.BadRequest whose fieldViolations name the same fields as details.errors[].',
  },
  {
    id: 'AAP-ERR-011',
    severity: 'MUST',
    scope: 'error',
    title: 'every validation problem at once',
    rule: 'A validation error lists every problem the request has in one reply, never just the first.',
  },
  {
    id: 'AAP-ERR-012',
    severity: 'MUST',
    scope: 'error',
    title: 'no stack traces',
    rule: 'No error message reads like a stack trace; diagnostics belong in details.',
  },
  {
    id: 'AAP-ERR-013',
    severity: 'MUST',
    scope: 'error',
    title: '-32008 message gives the recovery',
    rule: 'A -32008 message names the exact required extension URI and the literal header A2A-Extensions.',
  },
  {
    id: 'AAP-ERR-014',
    severity: 'MUST',
    scope: 'error',
    title: '-32008 carries its ErrorInfo',
    rule: 'A -32008 carries an ErrorInfo with domain a2a-protocol.org, reason EXTENSION_SUPPORT_REQUIRED and string metadata extensionUri and requiredHeader, naming the same URI as the message.',
  },
  {
    id: 'AAP-ERR-015',
    severity: 'MUST',
    scope: 'error',
    title: "A2A errors in A2A's own shape",
    rule: "A2A protocol errors keep A2A's shape: error.data is an array holding an ErrorInfo of domain a2a-protocol.org whose reason matches the code, and no aap.error.",
  },
  {
    id: 'AAP-ERR-016',
    severity: 'SHOULD',
    scope: 'error',
    title: 'RATE_LIMITED says when to retry',
    rule: 'RATE_LIMITED carries details.retry_after_ms or details.retry_after_seconds.',
  },
  // The 2.0 header policy
  {
    id: 'AAP-HDR-001',
    severity: 'MUST',
    scope: 'header',
    profiles: only20,
    title: '-32008 when the extension is not activated',
    rule: "Under 2.0 a skill call whose A2A-Extensions lacks the card's exact AAP URI is refused with -32008 before any skill logic runs.",
  },
  {
    id: 'AAP-HDR-002',
    severity: 'MUST',
    scope: 'header',
    profiles: only20,
    title: '-32009 for a missing or unserved A2A-Version',
    rule: 'Under 2.0 a request whose A2A-Version is absent, empty or a version the interface does not serve is refused with -32009.',
  },
  {
    id: 'AAP-HDR-003',
    severity: 'SHOULD',
    scope: 'header',
    title: 'activated extension echoed',
    rule: 'A reply to a request that activated the AAP extension names it in the A2A-Extensions response header.',
  },
  {
    id: 'AAP-HDR-004',
    severity: 'MUST',
    scope: 'header',
    title: 'unknown skill is UNSUPPORTED_SKILL',
    rule: 'A call to a skill the dealer does not implement is answered with the AAP error UNSUPPORTED_SKILL.',
  },
  // Streams
  {
    id: 'AAP-SSE-001',
    severity: 'MUST',
    scope: 'sse',
    title: 'every event a JSON-RPC response',
    rule: "Every event of a text/event-stream reply carries one JSON-RPC 2.0 response with the request's id.",
  },
  {
    id: 'AAP-SSE-002',
    severity: 'MUST',
    scope: 'sse',
    title: 'every event a StreamResponse',
    rule: 'Every successful event result holds exactly one of task, message, statusUpdate or artifactUpdate.',
  },
] as const satisfies readonly ConformanceRule[];

export type RuleId = (typeof CONFORMANCE_RULES)[number]['id'];

export const RULES_BY_ID: ReadonlyMap<string, ConformanceRule> = new Map(CONFORMANCE_RULES.map((r) => [r.id, r]));

/** Whether a rule applies under a profile. */
export function appliesUnder(rule: ConformanceRule, profile: Profile): boolean {
  return !rule.profiles || rule.profiles.includes(profile);
}

/** One observation about one rule: held (ok) or violated, at a JSON Pointer, with what was expected and seen. */
export interface Finding {
  rule: RuleId;
  ok: boolean;
  pointer: string;
  expected: string;
  seen: string;
}

/** A violation as the journal, the report and `check` carry it. */
export interface Violation {
  rule: RuleId;
  severity: Severity;
  pointer: string;
  expected: string;
  seen: string;
}

export function violationsOf(findings: readonly Finding[]): Violation[] {
  return findings
    .filter((f) => !f.ok)
    .map((f) => ({ rule: f.rule, severity: RULES_BY_ID.get(f.rule)!.severity, pointer: f.pointer, expected: f.expected, seen: f.seen }));
}

/** Collects findings for one exchange; only rules that apply under the profile are recorded. */
export class Findings {
  readonly list: Finding[] = [];
  constructor(readonly profile: Profile) {}

  applies(rule: RuleId): boolean {
    return appliesUnder(RULES_BY_ID.get(rule)!, this.profile);
  }

  /** Records a held rule when `ok`, a violation otherwise. */
  expect(rule: RuleId, ok: boolean, pointer: string, expected: string, seen: unknown): boolean {
    if (this.applies(rule)) this.list.push({ rule, ok, pointer, expected, seen: describe(seen) });
    return ok;
  }
}

/** A short text for a seen value: JSON, cut to a readable length. */
export function describe(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' && value.startsWith('(') ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
