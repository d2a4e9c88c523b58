/**
 * Checks a schema cannot express: unique rule ids, time windows that close before they open,
 * one terminal effect per rule, keys that only make sense next to another key, regular
 * expressions that do not compile, header names in `key`. They run on the raw document even
 * when the schema already failed, so a user sees every problem at once; every access is guarded.
 */
import { ERROR_SIBLING_KEYS, terminalEffectsOf } from './effect-kinds.js';
import { compileScenarioRegex } from './regex.js';
import { joinPointer, type Anchor } from './positions.js';
import { guardrailProblems } from './guardrail-checks.js';
import type { LocatedMessage } from './schema-problems.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function semanticProblems(document: unknown): LocatedMessage[] {
  const out: LocatedMessage[] = [];
  const report = (path: string, message: string, anchor: Anchor = 'value') => out.push({ path, anchor, message });
  if (isObject(document)) guardrailProblems(document, report);
  if (!isObject(document) || !Array.isArray(document.rules)) return out;

  const firstUseOfId = new Map<string, number>();
  document.rules.forEach((rule, index) => {
    if (!isObject(rule)) return;
    const at = (...segments: Array<string | number>) => joinPointer('/rules', index, ...segments);

    if (typeof rule.id === 'string') {
      const first = firstUseOfId.get(rule.id);
      if (first === undefined) firstUseOfId.set(rule.id, index);
      else report(at('id'), `duplicate rule id "${rule.id}" (already used by /rules/${first})`);
    }

    const terminals = terminalEffectsOf(rule);
    for (const extra of terminals.slice(1)) report(at(extra), `a rule has at most one terminal effect; this rule already has "${terminals[0]}"`, 'key');

    checkErrorSiblings(rule, (key, message) => report(at(key), message, 'key'));

    if (typeof rule.key === 'string' && rule.key.startsWith('header:')) {
      const name = rule.key.slice('header:'.length);
      if (name === '') report(at('key'), 'header name missing after "header:"');
      else if (!HEADER_NAME.test(name)) report(at('key'), `"${name}" is not a valid header name`);
    }

    const when = rule.when;
    if (isObject(when) && typeof when.from_s === 'number' && typeof when.until_s === 'number' && when.until_s <= when.from_s)
      report(at('when', 'until_s'), `until_s (${when.until_s}) must be greater than from_s (${when.from_s})`);

    if (isObject(rule.card) && rule.card.http !== undefined && rule.card.malformed_json !== undefined)
      report(at('card', 'malformed_json'), 'card: http and malformed_json both replace the card; keep one', 'key');

    const delay = rule.delay;
    if (isObject(delay) && delay.distribution === 'fixed' && typeof delay.jitter_ms === 'number' && delay.jitter_ms > 0)
      report(at('delay', 'jitter_ms'), 'jitter_ms has no effect with distribution "fixed"', 'key');

    for (const [path, source] of regexesOf(rule.match)) {
      try {
        compileScenarioRegex(source);
      } catch (e) {
        report(
          at('match', ...path),
          `invalid regular expression: ${(e as Error).message.replace(/^error parsing regexp: /, '')} (patterns use RE2 syntax: no lookaround, no backreferences)`,
        );
      }
    }
  });
  return out;
}

/**
 * retryable, message, details and retry_after_ms sit beside `error: CODE` (message also beside
 * `a2a_error`); in the object form they belong inside `error`.
 */
function checkErrorSiblings(rule: Json, report: (key: string, message: string) => void): void {
  for (const key of ERROR_SIBLING_KEYS) {
    if (!(key in rule)) continue;
    if (isObject(rule.error)) report(key, `"${key}" belongs inside the error object when error is written as an object`);
    else if (rule.error === undefined && !(key === 'message' && rule.a2a_error !== undefined))
      report(key, key === 'message' ? '"message" needs "error" or "a2a_error" on the same rule' : `"${key}" needs "error" on the same rule`);
  }
}

/** Every regular expression in a rule's match, with its path below `match`. */
function regexesOf(match: unknown): Array<[Array<string | number>, string]> {
  const found: Array<[Array<string | number>, string]> = [];
  if (!isObject(match)) return found;
  if (isObject(match.headers))
    for (const [name, test] of Object.entries(match.headers))
      if (isObject(test) && typeof test.regex === 'string') found.push([['headers', name, 'regex'], test.regex]);
  if (Array.isArray(match.body))
    match.body.forEach((test, i) => {
      if (isObject(test) && typeof test.regex === 'string') found.push([['body', i, 'regex'], test.regex]);
    });
  return found;
}
