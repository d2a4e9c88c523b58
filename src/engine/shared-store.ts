/**
 * What rules need from a state store, and the one place the engine asks a shared one. The memory
 * store is the engine's own session table (synchronous, as it always was); a shared store (Redis)
 * holds the counters of `after`/`every`/`times`, rate-limit windows and max_active_faults slots
 * for every replica at once, and is asked once per request, only when a stateful rule matched.
 */

/** One matched rule, in scenario order, as the shared walk needs it. */
export interface WalkStep {
  /** Counts seen/fired of this rule and key in this session. */
  counterKey: string;
  /** The rate-limit window of this rule and key in this session. */
  windowKey: string;
  /** The rule has `after`, `every`, `times` or `rate_limit`: its counters live in the store. */
  stateful: boolean;
  after: number;
  /** 0: no `every`. */
  every: number;
  /** -1: no `times`. */
  times: number;
  /** Local conditions held: `from_s`/`until_s` (this replica's session clock) and the probability draw. */
  localOk: boolean;
  /** 0: no rate limit. */
  rateLimit: number;
  rateWindowMs: number;
  /** The rule's terminal effect answers whatever the counters say (not a rate limit). */
  answers: boolean;
  hasModifiers: boolean;
}

export interface WalkRequest {
  steps: WalkStep[];
  /** Key of the session's set of fault slots (max_active_faults). */
  activeKey: string;
  /** max_active_faults, or undefined for no cap. */
  maxActive: number | undefined;
  /** Unique per request: names its slot and its rate-limit hits. */
  token: string;
}

export type StepVerdict = 'not_fired' | 'fired' | 'skipped_max_active';

export interface WalkResult {
  /** The request took a fault slot, to give back with `release`. */
  holdsSlot: boolean;
  steps: Array<{ verdict: StepVerdict; retryAfterMs?: number }>;
}

/** A store shared by every replica: rules walk through it atomically, in one round trip. */
export interface SharedRuleStore {
  /** The URL it was given, for messages. */
  readonly url: string;
  /** False while the store cannot be reached: stateful rules are suspended, none fire. */
  available(): boolean;
  /** Runs the walk atomically; rejects (within a bounded time) when the store cannot answer. */
  walk(request: WalkRequest): Promise<WalkResult>;
  /** Gives back a fault slot; never waits for the answer. */
  release(activeKey: string, token: string): void;
  /** Forgets every key under the prefix (a reset); bounded, and resolves even when the store is away. */
  forget(prefix: string): Promise<void>;
  /** Counts requests on which a rule was suspended (for /status and the metric). */
  noteSuspended(ruleIds: readonly string[]): void;
}

/** What /status shows of the state store. */
export interface StateStatus {
  store: 'memory' | 'redis';
  url?: string;
  /** ready: shared state answers; suspended: it does not, stateful rules do not fire. */
  status: 'ready' | 'suspended';
  /** Requests on which some rule was suspended for want of the shared store, since start. */
  suspended_requests: number;
  replica?: string;
  scenario_version?: number;
}
