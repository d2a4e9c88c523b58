/**
 * The one place a rule's effects are applied and recorded: the normal walk, the header-forced
 * path and the shared (fleet) walk all fire through here, so the journal's `faults` and the
 * metrics see every effect that acted.
 */
import type { EffectContext, ModifierEffect, TerminalAction, TerminalEffect } from '../effects/effect.js';
import type { AppliedEffect, Decision } from './decision.js';

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
  const record = (effect: AppliedEffect['effect'], sentence: string) => {
    decision.applied.push({ rule, effect, sentence });
    decision.sentences.push(sentence);
  };
  for (const m of modifiers) record(m.name, m.apply(decision.plan, ctx));
  if (terminal?.answer) {
    decision.terminal = { ruleId: rule, action: terminal.answer.action };
    record(terminal.effect.name, terminal.answer.explain);
  }
}

