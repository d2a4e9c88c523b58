/**
 * Which rule keys are effects and of which kind. A terminal effect answers the request and ends
 * evaluation; a modifier changes how the answer travels. The engine, the validator and the docs
 * share this one list.
 */
import { RE2JS } from 're2js';
import type { AapCode, ErrorSpec, Rule } from './types.generated.js';

export const TERMINAL_EFFECTS = ['error', 'a2a_error', 'require', 'rate_limit', 'http', 'network'] as const;
export const MODIFIER_EFFECTS = ['delay', 'patch', 'envelope', 'stream', 'bandwidth', 'card'] as const;

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
 * Regular expressions in scenarios (match.headers …regex, match.body …regex) come from users, so
 * they run on a linear-time engine (RE2 syntax, via re2js): no pattern can make matching take
 * longer than a pass over the value, whatever it is. RE2 has no lookaround and no backreferences;
 * such a pattern is rejected when the scenario is validated. Matches are unanchored.
 */
export interface ScenarioRegex {
  test(value: string): boolean;
}

/** Only this many leading characters of a value are matched (documented in docs/reliability.md). */
export const MAX_REGEX_INPUT_CHARS = 65_536;

/** Compiles one scenario pattern; throws with RE2's own message when it is not valid RE2 syntax. */
export function compileScenarioRegex(source: string): ScenarioRegex {
  const re = RE2JS.compile(source);
  return {
    test: (value) => re.matcher(value.length > MAX_REGEX_INPUT_CHARS ? value.slice(0, MAX_REGEX_INPUT_CHARS) : value).find(),
  };
}
