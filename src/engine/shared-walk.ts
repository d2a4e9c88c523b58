/**
 * The engine's shared path: when a request matches a rule that keeps state (or the scenario caps
 * active faults), the matched rules are walked once, atomically, in the shared store, in one
 * round trip; the local effects are then applied from its verdicts. While the store cannot be
 * reached, the rules that need it are suspended — they do not fire and the journal says so —
 * and the others still apply; forwarding never waits on Redis beyond its bounded timeout.
 */
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Rule } from '../scenario/types.generated.js';
import type { EffectContext, ModifierEffect, TerminalAction, TerminalEffect } from '../effects/effect.js';
import type { Decision } from './decision.js';
import { predicatesHold, type Predicate } from './match.js';
import { ruleKeepsState } from './rule-state.js';
import type { SharedRuleStore, WalkResult, WalkStep } from './shared-store.js';
import { SHARED_WINDOW } from '../effects/sliding-window.js';
import { DEFAULT_SESSION } from './sessions.js';
import { fire as fireRule } from './fire.js';
import { randomUUID } from 'node:crypto';

/** The parts of a compiled rule the walk needs. */
export interface WalkableRule {
  id: string;
  def: Rule;
  enabled: boolean;
  match: { predicates: Predicate[] };
  keyOf: (r: ClassifiedRequest) => string;
  terminal?: TerminalEffect;
  modifiers: ModifierEffect[];
  matched: number;
  fired: number;
}

export interface SharedWalkInput {
  request: ClassifiedRequest;
  extensionUri: string;
  session: string | undefined;
  candidates: readonly WalkableRule[];
  /** Seconds since this replica's session started (`from_s`/`until_s`). */
  elapsedS: number;
  random: () => number;
  ctxFor: (keyState: Record<string, unknown>) => EffectContext;
  decision: Decision;
}

interface Matched {
  rule: WalkableRule;
  stateful: boolean;
  localOk: boolean;
  /** A non-rate-limit terminal's answer, computed before the walk (it needs no shared state). */
  answer?: { action: TerminalAction; explain: string };
}

/** `from_s`, `until_s` and the probability: what each replica decides alone. */
function localConditionsHold(rule: Rule, elapsedS: number, random: () => number): boolean {
  const w = rule.when;
  if (!w) return true;
  if (w.from_s !== undefined && elapsedS < w.from_s) return false;
  if (w.until_s !== undefined && elapsedS >= w.until_s) return false;
  if (w.probability !== undefined && !(random() < w.probability)) return false;
  return true;
}

function countMatch(decision: Decision, rule: WalkableRule): void {
  rule.matched++;
  decision.matched.push(rule.id);
}

/**
 * A session id as one part of a key name. Ids may contain `:` (the separator), so `t1` would
 * otherwise be a prefix of `t1:x` and resetting the one would wipe the other: percent-encoded, the
 * part ends at the next `:` for every id.
 */
function sessionKeyPart(session: string): string {
  return encodeURIComponent(session);
}

export class SharedRuleWalk {
  /** Fault slots this replica holds now (for /status). */
  held = 0;

  constructor(
    private readonly store: SharedRuleStore,
    /** Key prefix of this scenario version: a new version starts from fresh counters. */
    readonly namespace: string,
    private readonly maxActive: number | undefined,
    /**
     * What a client key becomes in a Redis key name. A rule keyed by a header counts by the
     * header's value, often a credential, and key names are what SCAN, MONITOR and RDB files show.
     */
    private readonly keyName: (clientKey: string) => string = (clientKey) => clientKey,
  ) {}

  /**
   * The decision when shared state is involved, or undefined when none of the matched rules needs
   * it (the caller then decides locally, without any Redis call).
   */
  decide(input: SharedWalkInput): Decision | Promise<Decision> | undefined {
    const { request, extensionUri } = input;
    let needsStore = false;
    const matched: Matched[] = [];
    for (const rule of input.candidates) {
      if (!rule.enabled) continue;
      if (!predicatesHold(rule.match.predicates, request, extensionUri)) continue;
      const stateful = ruleKeepsState(rule.def);
      needsStore ||= stateful || this.maxActive !== undefined;
      matched.push({ rule, stateful, localOk: false });
    }
    if (!needsStore) return undefined;
    for (const m of matched) {
      m.localOk = localConditionsHold(m.rule.def, input.elapsedS, input.random);
      if (m.rule.terminal && m.rule.terminal.name !== 'rate_limit') m.answer = m.rule.terminal.decide(input.ctxFor({}));
    }
    if (!this.store.available()) return this.suspended(input, matched);
    const session = input.session ?? DEFAULT_SESSION;
    const base = `${this.namespace}:${sessionKeyPart(session)}`;
    const token = randomUUID();
    const activeKey = `${base}:active`;
    const steps: WalkStep[] = matched.map((m) => {
      const key = `${base}:${m.rule.id}:${this.keyName(m.rule.keyOf(request))}`;
      const w = m.rule.def.when;
      const rl = m.rule.def.rate_limit;
      return {
        counterKey: `${key}:c`,
        windowKey: `${key}:w`,
        stateful: m.stateful,
        after: w?.after ?? 0,
        every: w?.every ?? 0,
        times: w?.times ?? -1,
        localOk: m.localOk,
        rateLimit: rl?.limit ?? 0,
        rateWindowMs: rl?.window_ms ?? 0,
        answers: m.answer !== undefined,
        hasModifiers: m.rule.modifiers.length > 0,
      };
    });
    return this.store.walk({ steps, activeKey, maxActive: this.maxActive, token }).then(
      (result) => this.apply(input, matched, result, activeKey, token),
      () => this.suspended(input, matched),
    );
  }

  private apply(input: SharedWalkInput, matched: Matched[], result: WalkResult, activeKey: string, token: string): Decision {
    const { decision } = input;
    if (result.holdsSlot) {
      this.held++;
      let released = false;
      decision.release = () => {
        if (released) return;
        released = true;
        this.held--;
        this.store.release(activeKey, token);
      };
    }
    // Rules after the one that answered were never reached, as in the memory store's walk.
    result.steps.forEach((step, i) => {
      const m = matched[i]!;
      countMatch(decision, m.rule);
      if (step.verdict === 'skipped_max_active') decision.sentences.push(`${m.rule.id}: skipped, max_active_faults (${this.maxActive}) reached`);
    });
    for (let i = 0; i < result.steps.length; i++) {
      const step = result.steps[i]!;
      if (step.verdict !== 'fired') continue;
      const m = matched[i]!;
      const ctx = input.ctxFor({ [SHARED_WINDOW]: { retryAfterMs: step.retryAfterMs } });
      const answer = m.rule.terminal?.name === 'rate_limit' ? m.rule.terminal.decide(ctx) : m.answer;
      if (this.fire(decision, m.rule, ctx, answer)) break;
    }
    return decision;
  }

  /** Applies a rule that fired; true when its terminal effect answered (the walk ends). */
  private fire(decision: Decision, rule: WalkableRule, ctx: EffectContext, answer: Matched['answer']): boolean {
    rule.fired++;
    fireRule(decision, rule.id, rule.modifiers, rule.terminal && { effect: rule.terminal, answer }, ctx);
    return answer !== undefined;
  }

  /** The store did not answer: rules that need it do not fire; the others still do. */
  private suspended(input: SharedWalkInput, matched: Matched[]): Decision {
    const { decision } = input;
    const suspended: string[] = [];
    for (const m of matched) {
      countMatch(decision, m.rule);
      if (m.stateful || this.maxActive !== undefined) {
        suspended.push(m.rule.id);
        decision.sentences.push(`${m.rule.id}: suspended, shared state unavailable (${this.store.url})`);
        continue;
      }
      if (!m.localOk || (!m.answer && m.rule.modifiers.length === 0)) continue;
      if (this.fire(decision, m.rule, input.ctxFor({}), m.answer)) break;
    }
    decision.suspended = suspended;
    this.store.noteSuspended(suspended);
    return decision;
  }

  /** Forgets the shared state of one session, or of every session. */
  forget(session?: string): Promise<void> {
    return this.store.forget(session === undefined ? `${this.namespace}:` : `${this.namespace}:${sessionKeyPart(session)}:`);
  }
}
