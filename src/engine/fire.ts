/**
 * The one place a rule's effects are applied and recorded: the normal walk, the header-forced
 * path and the shared (fleet) walk all fire through here, so the journal's `faults` and the
 * metrics see every effect that acted.
 */
import type { EffectContext, ModifierEffect, TerminalAction, TerminalEffect } from '../effects/effect.js';
import { PASS_THROUGH, type AppliedEffect, type Decision } from './decision.js';
import { emptyPlan } from '../effects/reply-plan.js';

/**
 * A rule fires: its modifiers add to the plan, then its terminal answer (when it has one) is
 * taken. Each effect that acted is recorded once, with its rule and its sentence; the normal and
 * the header-forced path both come through here.
 */
export function fire(
  decision: Decision,
  rule: string,
  modifiers: readonly ModifierEffect[],
  terminal: { effect: TerminalEffect; answer: { action: TerminalAction; explain: string } | undefined } | undefined,
  ctx: EffectContext,
): void {
  decision.fired.push(rule);
  // A decision starts with the shared, frozen empty plan: a rule of terminal effects alone
  // (the injected-error path) never needs one of its own.
  if (modifiers.length > 0 && decision.plan === PASS_THROUGH.plan) decision.plan = emptyPlan();
  for (const m of modifiers) record(decision, rule, m.name, m.apply(decision.plan, ctx));
  if (terminal?.answer) {
    decision.terminal = { ruleId: rule, action: terminal.answer.action };
    record(decision, rule, terminal.effect.name, terminal.answer.explain);
  }
}

function record(decision: Decision, rule: string, effect: AppliedEffect['effect'], sentence: string): void {
  decision.applied.push({ rule, effect, sentence });
  decision.sentences.push(sentence);
}
