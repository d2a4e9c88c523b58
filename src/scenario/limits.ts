/**
 * Limits on what a scenario file may cost to load. A scenario is a few dozen rules; a file far
 * past that is a mistake or an attack, and parsing it whole would take seconds and gigabytes. The
 * size is checked before the file is read, nesting before it is parsed (the YAML parser recurses
 * once per level), the rule count right after parsing. Each refusal names the limit and the flag
 * that raises it.
 */

export interface ScenarioLimits {
  /** Bytes a scenario file or text may have (--max-scenario-bytes). */
  maxBytes: number;
  /** Rules a scenario may have (--max-scenario-rules). */
  maxRules: number;
}

export const DEFAULT_SCENARIO_LIMITS: Readonly<ScenarioLimits> = Object.freeze({ maxBytes: 1024 * 1024, maxRules: 10_000 });
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

/**
 * Offset where nesting first goes past the limit, or -1. One linear pass: flow brackets outside
 * quotes and comments, plus block levels from indentation and leading `- `, so it errs only
 * towards counting deeper than the parser would.
 */
export function excessiveNestingAt(text: string): number {
  let flow = 0;
  let lineStart = true;
  let block = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') {
      lineStart = true;
      block = 0;
      continue;
    }
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (lineStart) {
      if (c === ' ') {
        block += 0.5; // two spaces per level is the usual step
        continue;
      }
      if (c === '-' && text[i + 1] === ' ') {
        block += 1;
        i++;
        continue;
      }
      lineStart = false;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    // A quote opens a quoted scalar only where a scalar starts (not the apostrophe in "don't").
    if ((c === '"' || c === "'") && (i === 0 || ' \t[{,'.includes(text[i - 1]!))) quote = c;
    else if (c === '[' || c === '{') flow++;
    else if ((c === ']' || c === '}') && flow > 0) flow--;
    if (flow + block > MAX_NESTING_DEPTH) return i;
  }
  return block > MAX_NESTING_DEPTH ? text.length - 1 : -1;
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
