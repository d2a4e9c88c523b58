/**
 * The reply plan: what the modifiers of the rules that fired ask of one reply. Each body
 * modifier contributes steps; the proxy runs them generically — JSON steps on a whole JSON body,
 * stream steps on the body as it travels — and writes "… not applied: why" in one place. Steps
 * run in the order of the modifier keys in the schema, then in rule order (a patch before
 * envelope faults, SSE faults before a bandwidth cap), whatever order the rules come in.
 */
import type { Transform } from 'node:stream';
import type { Profile } from '../protocol/codes.js';
import type { JsonRpcId } from '../protocol/rpc-id.js';
import type { CardSignatureFault } from '../protocol/card-signature.js';
import { MODIFIER_EFFECTS, type ModifierEffectKey } from '../scenario/effect-keys.generated.js';

/** What a step may need of the reply it changes, as it stands when the reply goes out. */
export interface StepContext {
  /** The envelope profile in force now. */
  profile: Profile;
  /** The request's JSON-RPC id (null when it has none). */
  id: JsonRpcId;
}

interface Step {
  /** The effect that added the step (its rule key). */
  readonly effect: ModifierEffectKey;
  /** How a "not applied" note names what was skipped, e.g. `patch`, `stream faults`. */
  readonly label: string;
}

/** A change to a whole JSON body: the changed document, or why it did not apply. */
export interface JsonStep extends Step {
  /** Also applies to the error envelope a terminal effect injected. */
  readonly onInjected: boolean;
  apply(doc: unknown, ctx: StepContext): { doc: unknown } | { notApplied: string };
}

/** A change to the body as it streams to the buyer. */
export interface StreamStep extends Step {
  /** Also applies to a body sent whole: one the proxy wrote itself, or a JSON reply the plan rewrote. */
  readonly onWholeBody: boolean;
  /** Why this body cannot take the step (its content type), or undefined when it can. */
  refuses?(contentType: string): string | undefined;
  /** The step may cut or replace bytes, so the dealer's content-length no longer holds. */
  readonly changesLength: boolean;
  transform(ctx: StepContext): Transform;
}

/** Agent-card faults (only on GET of the card); card.ts carries them out. */
export interface CardPlan {
  http?: { status: number; headers: Record<string, string>; body: Buffer };
  malformedJson?: boolean;
  /** RFC 6902 operation lists, applied in order to the card served. */
  patches: unknown[][];
  stale?: { minutes?: number; card?: Record<string, unknown> };
  /** A signature fault, applied to the card once it is otherwise ready to serve. */
  signature?: CardSignatureFault;
}

export interface ReplyPlan {
  delayMs: number;
  json: JsonStep[];
  stream: StreamStep[];
  card?: CardPlan;
}

export function emptyPlan(): ReplyPlan {
  return { delayMs: 0, json: [], stream: [] };
}

/** True when a plan changes nothing of the reply's bytes (at most when it is sent). */
export function leavesBytesAlone(plan: ReplyPlan): boolean {
  return plan.json.length === 0 && plan.stream.length === 0 && !plan.card;
}

const STEP_ORDER: ReadonlyMap<string, number> = new Map(MODIFIER_EFFECTS.map((key, i) => [key, i]));

/** Adds a step after every step of its own or an earlier effect key. */
export function addStep<S extends JsonStep | StreamStep>(steps: S[], step: S): void {
  const rank = STEP_ORDER.get(step.effect)!;
  let at = steps.length;
  while (at > 0 && STEP_ORDER.get(steps[at - 1]!.effect)! > rank) at--;
  steps.splice(at, 0, step);
}

/**
 * The step this effect already added to the plan, else the one `create` makes, added: for effects
 * whose rules, firing on one request, combine into one step.
 */
export function combinedStep<T extends JsonStep | StreamStep, S extends T>(steps: T[], effect: ModifierEffectKey, create: () => S): S {
  const existing = steps.find((s) => s.effect === effect) as S | undefined;
  if (existing) return existing;
  const step = create();
  addStep(steps, step);
  return step;
}
