/**
 * Scenario text that is plain JSON (a JSON file, or a scenario object handed to the library) is
 * read by JSON.parse, which is many times faster than the YAML parser and builds the same values
 * for it (JSON is YAML 1.2). Two things JSON.parse allows and YAML does not are checked here: a
 * key written twice in one object (JSON.parse keeps the last), and characters YAML refuses; for
 * either, and for anything that is not JSON, the answer is undefined and the full YAML parser reads
 * the text, naming the line of each problem as before.
 */
import { UNSUPPORTED_IN_JSON } from './yaml-text.js';

/** The document JSON.parse builds from `text`, or undefined when the YAML parser must read it. */
export function readJsonText(text: string): { value: unknown } | undefined {
  const start = firstNonBlank(text);
  if (text[start] !== '{' && text[start] !== '[') return undefined;
  if (UNSUPPORTED_IN_JSON.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Keys in the text beyond those in the value were written twice: the YAML parser reports where.
  if (keysWritten(text) !== keysKept(value)) return undefined;
  return { value };
}

/** JSON's white space: space, tab, line feed, carriage return. */
const isBlank = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r';

function firstNonBlank(text: string): number {
  let i = 0;
  while (isBlank(text[i])) i++;
  return i;
}

/** How many object keys valid JSON text spells out: the strings followed by a colon. */
function keysWritten(text: string): number {
  let keys = 0;
  let i = text.indexOf('"');
  while (i >= 0) {
    // The closing quote is the first one not escaped by an odd run of backslashes.
    let close = text.indexOf('"', i + 1);
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes++;
      if (backslashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    let after = close + 1;
    while (isBlank(text[after])) after++;
    if (text[after] === ':') keys++;
    i = text.indexOf('"', after);
  }
  return keys;
}

/** How many keys the parsed value holds, over every object in it. */
function keysKept(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) keys += keysKept(item);
    return keys;
  }
  for (const key in value) {
    keys++;
    keys += keysKept((value as Record<string, unknown>)[key]);
  }
  return keys;
}
