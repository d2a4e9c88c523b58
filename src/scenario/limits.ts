/**
 * Limits on what a scenario file may cost to load. A scenario is a few dozen rules; a file far
 * past that is a mistake or an attack, and parsing it whole would take seconds and gigabytes. The
 * size is checked before the file is read, nesting before anything is built (every reader recurses
 * once per level), the rule count right after parsing. Each refusal names the limit and the flag
 * that raises it.
 */
import { SCENARIO_LIMIT_OPTIONS } from '../options.js';

export interface ScenarioLimits {
  /** Bytes a scenario file or text may have (--max-scenario-bytes). */
  maxBytes: number;
  /** Rules a scenario may have (--max-scenario-rules). */
  maxRules: number;
}

/** The defaults of --max-scenario-bytes and --max-scenario-rules, declared with the flags. */
export const DEFAULT_SCENARIO_LIMITS: Readonly<ScenarioLimits> = Object.freeze({
  maxBytes: SCENARIO_LIMIT_OPTIONS.maxBytes.parse(SCENARIO_LIMIT_OPTIONS.maxBytes.default),
  maxRules: SCENARIO_LIMIT_OPTIONS.maxRules.parse(SCENARIO_LIMIT_OPTIONS.maxRules.default),
});
/** Levels of nested collections a scenario may have; no real scenario comes near it. */
export const MAX_NESTING_DEPTH = 64;
/** Expansions of YAML aliases (`*name`) the document may make; a few real uses, never a bomb. */
export const MAX_ALIAS_EXPANSIONS = 100;

let current: ScenarioLimits = { ...DEFAULT_SCENARIO_LIMITS };

/** Sets the limits for every scenario loaded from now on in this process (the CLI flags call it). */
export function configureScenarioLimits(limits: Partial<ScenarioLimits>): void {
  current = { ...current, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) };
}

export function scenarioLimits(): Readonly<ScenarioLimits> {
  return current;
}

/** `atLeast`: the size is what was read before stopping, not the whole. */
export function tooLargeMessage(bytes: number, atLeast = false): string {
  return `the scenario is ${atLeast ? 'at least ' : ''}${bytes} bytes, more than the limit of ${current.maxBytes} bytes (raise it with --max-scenario-bytes)`;
}

export function tooManyRulesMessage(rules: number): string {
  return `the scenario has ${rules} rules, more than the limit of ${current.maxRules} (raise it with --max-scenario-rules)`;
}

export const TOO_DEEP_MESSAGE = `collections are nested more than ${MAX_NESTING_DEPTH} levels deep, past the nesting limit`;

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const SINGLE_QUOTE = 39;
const DOUBLE_QUOTE = 34;
const BACKSLASH = 92;
const HASH = 35;
const isBlank = (c: number) => c === SPACE || c === TAB;
const isBreak = (c: number) => c === LF || c === CR;
/** A quoted scalar may start after these, or at the start: blanks, line breaks, a byte-order mark, `[ { , :`. */
const BEFORE_QUOTE = new Set([SPACE, TAB, LF, CR, 0xfeff, 91, 123, 44, 58]);
/** ASCII characters that can change a reading's state or depth: line breaks, quotes, `\`, `#` and brackets. */
const SIGNIFICANT = new Uint8Array(128);
for (const c of '\n\r\'"\\#[]{}') SIGNIFICANT[c.charCodeAt(0)] = 1;
/** No reading is in this state. */
const NONE = -1;

/**
 * Whether the text may nest collections deeper than the limit, decided in one pass without
 * parsing. The answer is safe by construction: it never says "no" for text that a YAML or JSON
 * reader nests deeper; a "yes" may be wrong, and then the full parser, which measures the depth
 * exactly before building anything, decides. Quoting is what a plain scan gets wrong (an
 * apostrophe inside a plain scalar hides what follows, `{"a":"]]]"}` closes what is still
 * open), so the scan does not guess it: where a quote may open a quoted scalar it follows both
 * readings, and keeps, for each state a reading can be in, the deepest flow nesting any reading
 * reaches there. Block nesting is counted from each line's indentation and leading `- `, `? `, `: `.
 */
export function mayNestTooDeep(text: string): boolean {
  // The deepest flow nesting of the readings that are: outside quotes and comments; in '…'; in
  // '…' just before the second quote of ''; in "…"; in "…" just after a backslash; in a comment.
  let plain = 0;
  let single = NONE;
  let singleEscape = NONE;
  let double = NONE;
  let doubleEscape = NONE;
  let comment = NONE;
  let block = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Most characters change nothing: a letter outside quotes, or anything but a quote or backslash
    // inside them; only the character after an escape always counts, whatever it is.
    if (!lineStart && c < 128 && !SIGNIFICANT[c] && singleEscape === NONE && doubleEscape === NONE) continue;
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : LF;
    if (isBreak(c)) {
      lineStart = true;
      block = 0;
    } else if (lineStart) {
      if (isBlank(c))
        block += 0.5; // two spaces per level is the usual step
      else if ((c === 45 || c === 63 || c === 58) && (isBlank(next) || isBreak(next))) block += 1;
      else lineStart = false;
    }
    // The usual case, one reading outside quotes meeting no quote or `#`: only its depth changes.
    if (
      single === NONE &&
      double === NONE &&
      comment === NONE &&
      singleEscape === NONE &&
      doubleEscape === NONE &&
      c !== SINGLE_QUOTE &&
      c !== DOUBLE_QUOTE &&
      c !== HASH
    ) {
      if (c === 91 || c === 123) plain += 1;
      else if ((c === 93 || c === 125) && plain > 0) plain -= 1;
      if (plain + block > MAX_NESTING_DEPTH) return true;
      continue;
    }

    let toPlain = NONE;
    let toSingle = NONE;
    let toSingleEscape = NONE;
    let toDouble = NONE;
    let toDoubleEscape = NONE;
    let toComment = NONE;
    if (plain !== NONE) {
      if (c === HASH && (i === 0 || isBlank(text.charCodeAt(i - 1)) || isBreak(text.charCodeAt(i - 1)))) {
        toComment = plain; // outside quotes `#` after a blank always starts a comment (in a block scalar it is text, which nests nothing)
      } else {
        toPlain = c === 91 || c === 123 ? plain + 1 : (c === 93 || c === 125) && plain > 0 ? plain - 1 : plain;
        // The same quote may open a quoted scalar or be part of a plain one: both readings go on.
        if ((c === SINGLE_QUOTE || c === DOUBLE_QUOTE) && (i === 0 || BEFORE_QUOTE.has(text.charCodeAt(i - 1)))) {
          if (c === SINGLE_QUOTE) toSingle = plain;
          else toDouble = plain;
        }
      }
    }
    if (single !== NONE) {
      if (c !== SINGLE_QUOTE) toSingle = Math.max(toSingle, single);
      else if (next === SINGLE_QUOTE) toSingleEscape = single;
      else toPlain = Math.max(toPlain, single);
    }
    if (singleEscape !== NONE) toSingle = Math.max(toSingle, singleEscape);
    if (double !== NONE) {
      if (c === BACKSLASH) toDoubleEscape = double;
      else if (c === DOUBLE_QUOTE) toPlain = Math.max(toPlain, double);
      else toDouble = Math.max(toDouble, double);
    }
    if (doubleEscape !== NONE) toDouble = Math.max(toDouble, doubleEscape);
    if (comment !== NONE) {
      if (isBreak(c)) toPlain = Math.max(toPlain, comment);
      else toComment = Math.max(toComment, comment);
    }
    plain = toPlain;
    single = toSingle;
    singleEscape = toSingleEscape;
    double = toDouble;
    doubleEscape = toDoubleEscape;
    comment = toComment;
    if (Math.max(plain, comment) + block > MAX_NESTING_DEPTH) return true;
  }
  return false;
}

/**
 * Whether a parsed value nests collections deeper than the limit, or holds more values than a
 * scenario of the size limit could (shared or circular references would make JSON.stringify, or
 * this walk, go on for ever). A loop over an explicit stack: no recursion that the input controls.
 */
export function objectNestingExceeded(value: unknown): boolean {
  const budget = current.maxBytes / 2; // every value in JSON text takes two bytes at least
  const stack: Array<[unknown, number]> = [[value, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_NESTING_DEPTH || ++visited > budget) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
