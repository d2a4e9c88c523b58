/**
 * A JSON line read from outside is bounded before it is parsed: in size by the caller, and in
 * nesting depth here, by one pass over its bytes (strings skipped), so no later walk recurses
 * without end.
 */

/** The deepest nesting of objects and arrays in a JSON text, stopping as soon as it passes `max`. */
export function nestingWithin(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}
