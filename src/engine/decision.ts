/**
 * What the engine decides for one request, and the interface the proxy asks it through.
 * The proxy knows nothing of rules; it carries out a Decision.
 */
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Profile } from '../protocol/codes.js';
import type { SessionSummary } from './sessions.js';
import type { TerminalAction } from '../effects/effect.js';
import { emptyPlan, type ReplyPlan } from '../effects/reply-plan.js';
import type { EffectKey } from '../scenario/effect-keys.generated.js';

/** One effect that really acted on a request. */
export interface AppliedEffect {
  /** The rule id, or `header:CODE` for an error forced by the x-aap-chaos header. */
  rule: string;
  effect: EffectKey;
  /** What it did, as the journal's `effects` prints it. */
  sentence: string;
}

export interface Decision {
  /** Rule ids whose `match` held. */
  matched: string[];
  /** Rule ids that fired (`match` and `when` held). */
  fired: string[];
  /** One sentence per effect applied and per rule max_active_faults held back, in order (the journal's `effects`). */
  sentences: string[];
  /** Every effect that acted, in order: the one record the journal's `faults` and the metrics come from. */
  applied: AppliedEffect[];
  terminal?: { ruleId: string; action: TerminalAction };
  plan: ReplyPlan;
  /** Called once when the reply is finished: releases the rule's slot under max_active_faults. */
  release(): void;
  /** Rules that did not fire because the shared state store could not be reached. */
  suspended?: string[];
}

export interface DecisionInput {
  request: ClassifiedRequest;
  profile: Profile;
  extensionUri: string;
  /** The session the request named (undefined: the default session). */
  session?: string;
  /** The dealer the request is for, when one proxy fronts several (what `match: { dealer }` reads). */
  dealer?: string;
}

export interface Decider {
  /** Synchronous with the memory store; a promise only when a shared store had to be asked. */
  decide(input: DecisionInput): Decision | Promise<Decision>;
}

const noop = () => {};
const NO_SENTENCES = Object.freeze([]) as unknown as string[];

/**
 * The decision when no rule applies: forward untouched. One shared, frozen instance: the hot path
 * should not allocate a decision for requests no rule looks at.
 */
export const PASS_THROUGH: Decision = Object.freeze({
  matched: Object.freeze([]) as unknown as string[],
  fired: Object.freeze([]) as unknown as string[],
  sentences: NO_SENTENCES,
  applied: Object.freeze([]) as unknown as AppliedEffect[],
  plan: Object.freeze({ ...emptyPlan(), json: Object.freeze([]) as unknown as ReplyPlan['json'], stream: Object.freeze([]) as unknown as ReplyPlan['stream'] }),
  release: noop,
});

/** Per-rule counters, as `/status` and `ctl status` show them. */
export interface RuleStatus {
  id: string;
  description?: string;
  enabled: boolean;
  /** Requests whose `match` held. */
  matched: number;
  /** Requests on which the rule fired. */
  fired: number;
  /** One sentence per effect of the rule. */
  effects: string[];
}

/** A loaded scenario ready to decide requests: what the proxy swaps atomically on reload. */
export interface ScenarioEngine<D extends Decision | Promise<Decision> = Decision | Promise<Decision>> extends Decider {
  decide(input: DecisionInput): D;
  readonly name: string;
  readonly description?: string;
  /** The seed actually in use (file, --seed, or a random one). */
  readonly seed: number;
  /** The scenario's profile setting, when it has one. */
  readonly profile?: 'auto' | '1.3' | '2.0';
  /** The scenario's `report:` thresholds, when it has them. */
  readonly reportThresholds?: Record<string, number>;
  /** The scenario as loaded (plain data, what `GET /scenario` returns). */
  readonly definition: unknown;
  rules(): RuleStatus[];
  /** Turns a rule on or off live; false when no rule has that id. */
  setEnabled(id: string, enabled: boolean): boolean;
  /** Clears counters, rate-limit state and per-key state of every session. */
  reset(): void;
  /** Fleet mode: forgets the shared rule state of one session, or of all (after reset / resetSession). */
  forgetShared?(session?: string): Promise<void>;
  /** Forgets one session's rule state; false when it had none. */
  resetSession(id: string): boolean;
  /** The sessions the engine holds state for, the least recently used first. */
  sessions(): SessionSummary[];
  /** Injected faults in progress now (what max_active_faults caps). */
  activeFaults(): number;
  /** The published scenario version this engine runs (fleet mode only). */
  readonly version?: number;
}
