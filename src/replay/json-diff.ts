/**
 * Field-level differences between two JSON values, as JSON Pointers with the value on each side.
 * Volatile fields (ids, timestamps: src/protocol/volatile-fields.ts) and ignored pointers are
 * looked past. Bounded in depth and in the number of differences listed.
 */
import { isIgnoredPointer, isVolatileKey, pointerToken } from '../protocol/volatile-fields.js';

export interface Difference {
  pointer: string;
  /** Absent (undefined) when the field is missing on that side. */
  recorded?: unknown;
  live?: unknown;
}

const MAX_DEPTH = 32;
export const MAX_DIFFERENCES = 200;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `ignored` pointers are relative to the two values; the pointers reported start with `prefix`
 * (where the values sit in a larger document).
 */
export function jsonDifferences(recorded: unknown, live: unknown, ignored: readonly string[] = [], prefix = ''): Difference[] {
  const found: Difference[] = [];
  walk(recorded, live, '', 0, ignored, found);
  return prefix === '' ? found : found.map((d) => ({ ...d, pointer: prefix + d.pointer }));
}

function walk(a: unknown, b: unknown, pointer: string, depth: number, ignored: readonly string[], out: Difference[]): void {
  if (out.length >= MAX_DIFFERENCES || isIgnoredPointer(pointer, ignored)) return;
  if (depth >= MAX_DEPTH) {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ pointer, recorded: a, live: b });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const at = `${pointer}/${i}`;
      if (i >= a.length) out.push({ pointer: at, live: b[i] });
      else if (i >= b.length) out.push({ pointer: at, recorded: a[i] });
      else walk(a[i], b[i], at, depth + 1, ignored, out);
    }
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      if (isVolatileKey(key, key in a ? a : b, depth)) continue;
      const at = `${pointer}/${pointerToken(key)}`;
      if (isIgnoredPointer(at, ignored)) continue;
      if (!(key in b)) out.push({ pointer: at, recorded: a[key] });
      else if (!(key in a)) out.push({ pointer: at, live: b[key] });
      else walk(a[key], b[key], at, depth + 1, ignored, out);
    }
    return;
  }
  if (!Object.is(a, b) && JSON.stringify(a) !== JSON.stringify(b)) out.push({ pointer, recorded: a, live: b });
}
