/**
 * The rule engine: for each classified request, walks the candidate rules in order, applies
 * match → key → when around every effect, collects modifiers into a reply plan, and stops at the
 * first terminal effect that answers. One engine per loaded scenario; a reload builds a new one.
 */
import { boundReached } from '../common/bound-counts.js';
import { AAP_CODES, isAapCode, type AapCode } from '../protocol/codes.js';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Rule, Scenario } from '../scenario/types.generated.js';
import type { EffectContext, ModifierEffect, TerminalEffect } from '../effects/effect.js';
import type { ReplyPlan } from '../effects/reply-plan.js';
import { createErrorEffect } from '../effects/error.js';
import { effectsOf } from '../effects/registry.js';
import { PASS_THROUGH, type Decision, type DecisionInput, type RuleStatus, type ScenarioEngine } from './decision.js';
import { compileMatch, predicatesHold, RuleIndex, type CompiledMatch } from './match.js';
import { fires } from './when.js';
import { fire } from './fire.js';
import { SessionTable, type KeyState, type SessionState } from './sessions.js';
import { isAgentCardPath } from '../protocol/agent-card.js';
import { boundText } from '../common/bounds.js';
import { clientKey } from '../common/client-key.js';
import { firstHeaderValue } from '../protocol/header-value.js';
import { SharedRuleWalk } from './shared-walk.js';
import { replicaSeed } from './rule-state.js';
import type { SharedRuleStore } from './shared-store.js';

/** Request header that forces one fault when --allow-header-faults is on. */
export const FAULT_HEADER = 'x-aap-chaos';
/** Distinct keys remembered per rule; the oldest is forgotten past this. */
const MAX_KEYS_PER_RULE = 10_000;

interface CompiledRule {
  id: string;
  def: Rule;
  enabled: boolean;
  match: CompiledMatch;
  keyOf: (r: ClassifiedRequest) => string;
  terminal?: TerminalEffect;
  modifiers: ModifierEffect[];
  /** Totals over every session, as `/status` shows them. */
  matched: number;
  fired: number;
}

export interface EngineOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Honour `x-aap-chaos: <rule id | AAP code>` on requests. */
  allowHeaderFaults?: boolean;
  /** Told of each rule whose fault max_active_faults refused (the overflow metric). */
  onFaultOverflow?: (rule: string) => void;
  /** Mixed into the seed: each replica of a fleet has its own reproducible stream. */
  replicaId?: string;
}

/** An engine whose stateful rules live in a shared store (fleet mode). */
export interface FleetEngineOptions extends EngineOptions {
  /** `keyName`: what a client key becomes in the store's key names (a keyed hash in a fleet). */
  shared?: { store: SharedRuleStore; namespace: string; version: number; keyName?: (clientKey: string) => string };
}

function keyFunction(spec: string | undefined): (r: ClassifiedRequest) => string {
  const key = clientKey(spec);
  if (key.kind === 'ip') return (r) => r.clientIp;
  if (key.kind === 'skill') return (r) => r.skill ?? '(no skill)';
  const name = key.header;
  // A buyer picks this value: a long one is remembered by its start and a hash.
  return (r) => boundText(firstHeaderValue(r.headers, name) ?? '(absent)');
}

function compileRule(def: Rule): CompiledRule {
  const { terminal, modifiers } = effectsOf(def);
  const match = compileMatch(def.match);
  // Card faults are about the agent card alone: such a rule never meets any other request (the index settles it).
  if (def.card !== undefined) match.cardOnly = true;
  return { id: def.id, def, enabled: def.enabled ?? true, match, keyOf: keyFunction(def.key), terminal, modifiers, matched: 0, fired: 0 };
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/**
 * A decision being made, for a request some rule may concern. A class rather than an object of
 * closures: the engine decides on every such request, and each closure was an allocation.
 */
class DecisionDraft implements Decision {
  matched: string[] = [];
  fired: string[] = [];
  sentences: string[] = [];
  applied: Decision['applied'] = [];
  terminal: Decision['terminal'];
  /** The shared empty plan until a modifier adds to it (fire() makes the plan then). */
  plan: ReplyPlan = PASS_THROUGH.plan;
  suspended?: string[];
  private holdsSlot = false;

  constructor(
    private readonly session: SessionState,
    private readonly maxActive: number | undefined,
  ) {}

  /** Takes one of the session's max_active_faults slots (once per request); false when none is free. */
  takeSlot(): boolean {
    if (this.holdsSlot) return true;
    if (this.maxActive !== undefined && this.session.active >= this.maxActive) return false;
    this.session.active++;
    this.holdsSlot = true;
    return true;
  }

  release(): void {
    if (this.holdsSlot) this.session.active--;
    this.holdsSlot = false;
  }
}

function effectContext(input: DecisionInput, random: () => number, now: number, keyState: Record<string, unknown>): EffectContext {
  return { request: input.request, profile: input.profile, extensionUri: input.extensionUri, random, now, keyState };
}

export function createEngine(scenario: Scenario, opts?: EngineOptions): ScenarioEngine<Decision>;
export function createEngine(scenario: Scenario, opts: FleetEngineOptions): ScenarioEngine;
export function createEngine(scenario: Scenario, opts: FleetEngineOptions = {}): ScenarioEngine {
  const seed = opts.seed ?? scenario.seed ?? randomSeed();
  const sessions = new SessionTable(replicaSeed(seed, opts.replicaId));
  const rules = (scenario.rules ?? []).map(compileRule);
  const byId = new Map(rules.map((r) => [r.id, r]));
  const index = new RuleIndex(rules);
  // Only a scenario with card rules asks each request whether it is for the card.
  const hasCardRules = rules.some((r) => r.match.cardOnly);
  const maxActive = scenario.max_active_faults;
  const shared = opts.shared && new SharedRuleWalk(opts.shared.store, opts.shared.namespace, maxActive, opts.shared.keyName);
  const forcedCodeEffects = new Map<AapCode, TerminalEffect>(AAP_CODES.map((code) => [code, createErrorEffect({ id: `header:${code}`, error: { code } })]));

  const stateFor = (session: SessionState, rule: CompiledRule, key: string): KeyState => {
    let keys = session.keys.get(rule.id);
    if (!keys) session.keys.set(rule.id, (keys = new Map()));
    let s = keys.get(key);
    if (!s) {
      if (keys.size >= MAX_KEYS_PER_RULE) {
        keys.delete(keys.keys().next().value!);
        boundReached('rule_keys');
      }
      s = { seen: 0, fired: 0, data: {} };
      keys.set(key, s);
    }
    return s;
  };

  function decide(input: DecisionInput): Decision | Promise<Decision> {
    const { request } = input;
    const forcedHeader = opts.allowHeaderFaults ? request.headers[FAULT_HEADER] : undefined;
    const card = hasCardRules && request.httpMethod === 'GET' && isAgentCardPath(request.path);
    const candidates = index.candidates(request, input.dealer, card);
    // Most requests meet no rule at all: they cost one index lookup and no allocation.
    if (candidates.length === 0 && !forcedHeader) return PASS_THROUGH;
    const now = performance.now();
    const session = sessions.get(input.session, now);
    const decision = new DecisionDraft(session, maxActive);
    const random = session.draw;

    if (forcedHeader) {
      const value = firstHeaderValue(request.headers, FAULT_HEADER);
      if (value) {
        const rule = byId.get(value);
        const terminal = rule?.terminal ?? (isAapCode(value) ? forcedCodeEffects.get(value) : undefined);
        if ((rule || terminal) && decision.takeSlot()) {
          if (rule) rule.fired++;
          // A forced fault has no key state: a forced rate limit starts from an empty window.
          const ctx = effectContext(input, random, now, {});
          fire(decision, rule ? rule.id : `header:${value}`, rule?.modifiers ?? [], terminal && { effect: terminal, answer: terminal.decide(ctx) }, ctx);
          return decision;
        }
      }
    }

    const elapsedS = (now - session.startedAt) / 1000;
    if (shared) {
      const ctxFor = (keyState: Record<string, unknown>): EffectContext => effectContext(input, random, now, keyState);
      const sharedDecision = shared.decide({
        request,
        extensionUri: input.extensionUri,
        session: input.session,
        candidates,
        elapsedS,
        random,
        ctxFor,
        decision,
      });
      if (sharedDecision) return sharedDecision;
    }
    for (const rule of candidates) {
      if (!rule.enabled) continue;
      if (!predicatesHold(rule.match.predicates, request, input.extensionUri)) continue;
      rule.matched++;
      decision.matched.push(rule.id);
      const state = stateFor(session, rule, rule.keyOf(request));
      state.seen++;
      if (!fires(rule.def.when, state, elapsedS, random)) continue;
      // A rule whose terminal effect has nothing to say (an unmet rate limit) applies nothing.
      const ctx = effectContext(input, random, now, state.data);
      const answer = rule.terminal?.decide(ctx);
      if (!answer && rule.modifiers.length === 0) continue;
      if (!decision.takeSlot()) {
        decision.sentences.push(`${rule.id}: skipped, max_active_faults (${maxActive}) reached`);
        opts.onFaultOverflow?.(rule.id);
        continue;
      }
      rule.fired++;
      state.fired++;
      fire(decision, rule.id, rule.modifiers, rule.terminal && { effect: rule.terminal, answer }, ctx);
      if (answer) break;
    }
    return decision;
  }

  return {
    name: scenario.scenario ?? 'unnamed',
    description: scenario.description,
    seed,
    profile: scenario.profile,
    reportThresholds: scenario.report as Record<string, number> | undefined,
    definition: scenario,
    version: opts.shared?.version,
    decide,
    rules: (): RuleStatus[] =>
      rules.map((r) => ({
        id: r.id,
        description: r.def.description,
        enabled: r.enabled,
        matched: r.matched,
        fired: r.fired,
        effects: [...(r.terminal ? [r.terminal.explain()] : []), ...r.modifiers.map((m) => m.explain())],
      })),
    setEnabled(id, enabled) {
      const rule = byId.get(id);
      if (!rule) return false;
      rule.enabled = enabled;
      return true;
    },
    reset() {
      for (const r of rules) {
        r.matched = 0;
        r.fired = 0;
      }
      sessions.clear();
    },
    resetSession: (id) => sessions.reset(id),
    forgetShared: async (session) => shared?.forget(session),
    sessions: () => sessions.list(),
    activeFaults: () => sessions.activeFaults() + (shared?.held ?? 0),
  };
}
