/**
 * The one interface every effect implements (one file per effect, as Toxiproxy keeps one file
 * per toxic). The engine applies `match`, `when` and `key` around every effect; an effect
 * never re-implements them. A terminal effect may answer instead of the dealer; a modifier
 * adds to the reply plan that the proxy carries out.
 */
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Profile } from '../protocol/codes.js';
import type { JsonRpcErrorResponse } from '../protocol/envelopes.js';
import type { CardPlan } from './card.js';

export interface EffectContext {
  request: ClassifiedRequest;
  profile: Profile;
  /** The AAP extension URI that -32008 must name. */
  extensionUri: string;
  /** The scenario's seeded generator: every random choice comes from here. */
  random: () => number;
  /** Milliseconds on a monotonic clock (what windows and rate limits are measured with). */
  now: number;
  /** State private to this rule and this client key (counters, rate-limit timestamps). */
  keyState: Record<string, unknown>;
}

/** What a terminal effect answers with. */
export type TerminalAction =
  | {
      type: 'reply';
      status: number;
      headers?: Record<string, string>;
      body: Buffer;
      /** Set when the body is a JSON-RPC error envelope (so `envelope` modifiers and the journal see it). */
      envelope?: JsonRpcErrorResponse;
    }
  | { type: 'reset' }
  | { type: 'hang'; maxMs: number }
  | { type: 'malformed_json' }
  | { type: 'truncate'; bytes: number };

/** Transforms of the reply that modifiers add up; the proxy carries them out in one place. */
export interface ReplyPlan {
  delayMs: number;
  /** RFC 6902 operation lists applied in order to a JSON reply (success or error). */
  patches: unknown[][];
  /** `random` is the scenario's seeded generator, so shuffles repeat with the seed. */
  envelope?: { shuffle?: boolean; unknown_detail?: boolean; random: () => number };
  sse?: { delay_ms?: number; cut_after?: number; error_after?: number };
  bytesPerSecond?: number;
  /** Agent-card faults (only on GET of the card). */
  card?: CardPlan;
}

export function emptyPlan(): ReplyPlan {
  return { delayMs: 0, patches: [] };
}

export interface TerminalEffect {
  readonly name: string;
  readonly terminal: true;
  /** The sentence the journal, `ctl events` and the report print. */
  explain(): string;
  /**
   * The answer for this request, or undefined when the effect's condition is not met
   * (a `require` the request satisfies, a `rate_limit` not yet exceeded) and evaluation goes on.
   */
  decide(ctx: EffectContext): { action: TerminalAction; explain: string } | undefined;
}

export interface ModifierEffect {
  readonly name: string;
  readonly terminal: false;
  explain(): string;
  /** Adds this effect's contribution to the plan; returns the sentence describing what it did. */
  apply(plan: ReplyPlan, ctx: EffectContext): string;
}

export type Effect = TerminalEffect | ModifierEffect;
