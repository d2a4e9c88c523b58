/**
 * The one interface every effect implements (one file per effect, as Toxiproxy keeps one file
 * per toxic). The engine applies `match`, `when` and `key` around every effect; an effect
 * never re-implements them. A terminal effect may answer instead of the dealer with one of the
 * proxy's transport primitives (reply, reset, hang, truncate); a modifier adds to the reply plan,
 * whose steps it also implements. Effects import protocol/, the scenario types and Node streams,
 * never the proxy.
 */
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Profile } from '../protocol/codes.js';
import type { JsonRpcErrorResponse } from '../protocol/envelopes.js';
import type { ReplyBodyKind } from '../protocol/reply-kind.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import type { ModifierEffectKey, TerminalEffectKey } from '../scenario/effect-keys.generated.js';
import type { ReplyPlan } from './reply-plan.js';

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

/** What a terminal effect answers with: one of the transport primitives the proxy owns. */
export type TerminalAction =
  | {
      type: 'reply';
      status: number;
      headers?: Record<string, string>;
      body: Buffer;
      /** Set when the body is a JSON-RPC error envelope (so `envelope` modifiers and the journal see it). */
      envelope?: JsonRpcErrorResponse;
      /** What the journal calls the body, when the effect knows better than a read of it. */
      bodyKind?: ReplyBodyKind;
    }
  | { type: 'reset' }
  | { type: 'hang'; maxMs: number }
  | { type: 'truncate'; bytes: number };

/** JSON-RPC errors travel on HTTP 200 unless a rule says otherwise. `text`: the envelope already serialised (from a template). */
export function envelopeReply(envelope: JsonRpcErrorResponse, status = 200, text?: string): TerminalAction {
  return { type: 'reply', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(text ?? stringifyJsonRpc(envelope)), envelope };
}

export interface TerminalEffect {
  readonly name: TerminalEffectKey;
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
  readonly name: ModifierEffectKey;
  readonly terminal: false;
  explain(): string;
  /** Adds this effect's contribution to the plan; returns the sentence describing what it did. */
  apply(plan: ReplyPlan, ctx: EffectContext): string;
}

export type Effect = TerminalEffect | ModifierEffect;
