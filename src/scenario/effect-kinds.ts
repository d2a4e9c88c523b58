/**
 * Which rule keys are effects and of which kind. A terminal effect answers the request and ends
 * evaluation; a modifier changes how the answer travels. The two lists are generated from the
 * schema's `x-aap-effect` annotations; the engine, the validator and the docs share them.
 */
import type { AapCode, ErrorSpec, Rule } from './types.generated.js';
import { TERMINAL_EFFECTS, type TerminalEffectKey } from './effect-keys.generated.js';

export { MODIFIER_EFFECTS, TERMINAL_EFFECTS, type EffectKey, type ModifierEffectKey, type TerminalEffectKey } from './effect-keys.generated.js';

/** Keys that sit next to `error: CODE` (the flat form) and belong to it. */
export const ERROR_SIBLING_KEYS = ['retryable', 'message', 'details', 'retry_after_ms', 'retry_after_seconds'] as const;

/** The terminal effects a rule declares, in rule key order. */
export function terminalEffectsOf(rule: object): TerminalEffectKey[] {
  return Object.keys(rule).filter((k): k is TerminalEffectKey => (TERMINAL_EFFECTS as readonly string[]).includes(k));
}

/**
 * The `error` effect of a rule in one shape, whichever form the file used:
 * `error: CODE` with sibling keys, or `error: { code, … }`.
 */
export function ruleErrorSpec(rule: Rule): ErrorSpec | undefined {
  const { error } = rule;
  if (error === undefined) return undefined;
  if (typeof error === 'object') return error;
  const spec: ErrorSpec = { code: error as AapCode };
  if (rule.retryable !== undefined) spec.retryable = rule.retryable;
  if (rule.message !== undefined) spec.message = rule.message;
  if (rule.details !== undefined) spec.details = rule.details;
  if (rule.retry_after_ms !== undefined) spec.retry_after_ms = rule.retry_after_ms;
  if (rule.retry_after_seconds !== undefined) spec.retry_after_seconds = rule.retry_after_seconds;
  return spec;
}

/**
 * The rule with the short form rewritten, once, as a loaded scenario's effects are built:
 * `error: CODE` with its sibling keys becomes `error: { code, … }`, so every effect sees one
 * shape. A copy: the scenario document (what `GET /scenario` returns) stays as written.
 */
export function normaliseErrorForm(rule: Rule): Rule {
  if (rule.error === undefined || typeof rule.error === 'object') return rule;
  const normalised: Rule = { ...rule, error: ruleErrorSpec(rule) };
  for (const key of ERROR_SIBLING_KEYS) delete normalised[key];
  return normalised;
}
