/**
 * Regular expressions in scenarios (match.headers …regex, match.body …regex) come from users, so
 * they run on a linear-time engine (RE2 syntax, via re2js): no pattern can make matching take
 * longer than a pass over the value, whatever it is. RE2 has no lookaround and no backreferences;
 * such a pattern is rejected when the scenario is validated. Matches are unanchored.
 */
import { RE2JS } from 're2js';

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
