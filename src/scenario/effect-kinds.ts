/**
 * Which rule keys are effects and of which kind. A terminal effect answers the request and ends
 * evaluation; a modifier changes how the answer travels. The engine, the validator and the docs
 * share this one list.
 */
import type { AapCode, ErrorSpec, Rule } from './types.generated.js';

export const TERMINAL_EFFECTS = ['error', 'a2a_error', 'require', 'rate_limit', 'http', 'network'] as const;
export const MODIFIER_EFFECTS = ['delay', 'patch', 'envelope', 'stream', 'bandwidth'] as const;

export type TerminalEffectKey = (typeof TERMINAL_EFFECTS)[number];
export type ModifierEffectKey = (typeof MODIFIER_EFFECTS)[number];

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
 * Regular expressions in scenarios (match.headers …regex, match.body …regex) are JavaScript
 * syntax, unanchored, compiled with the `u` flag; validation and matching both compile here.
 */
export function compileScenarioRegex(source: string): RegExp {
  return new RegExp(source, 'u');
}
