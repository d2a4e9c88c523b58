/**
 * Bounds on what the journal stores. Everything in a journal line that a buyer can choose (the
 * JSON-RPC id, the client key header, the path, an idempotency key, a vehicle id, notes quoting a
 * dealer) is cut to a fixed length, so one request with a 1 MB id costs the ring a few hundred
 * bytes, not a megabyte. A cut value keeps a hash of the whole, so two long values that differ
 * stay different (the report compares ids and keys).
 */
import { hash } from 'node:crypto';

/** Characters a stored string keeps (docs/reliability.md). */
export const MAX_STORED_CHARS = 256;
/** Characters of a request path kept. */
export const MAX_STORED_PATH_CHARS = 8192;
/** Items a stored list keeps; the rest are counted in one last item. */
export const MAX_STORED_ITEMS = 64;

/** The value itself when short enough; otherwise its start, its length and a hash of the whole. */
export function boundText(value: string, max = MAX_STORED_CHARS): string {
  if (value.length <= max) return value;
  return `${value.slice(0, max)}…(${value.length} chars, sha256:${hash('sha256', value).slice(0, 16)})`;
}

/**
 * A copy of a journal line with every string and list bounded, whatever fields it has; a line
 * already within bounds is returned as it is (the common case costs one walk, no copy).
 */
export function boundJournalEntry<T extends object>(entry: T): T {
  if (withinBounds(entry, 0, MAX_STORED_CHARS)) return entry;
  const out = bound(entry, 0) as Record<string, unknown>;
  // The path is already limited by Node's 16 KiB header limit; it is kept longer than other strings.
  const path = (entry as { path?: unknown }).path;
  if (typeof path === 'string') out.path = boundText(path, MAX_STORED_PATH_CHARS);
  return out as T;
}

/**
 * A field added to a line after boundJournalEntry ran (entry-shape.ts takes the request facts
 * late): bounded as it would have been had it been there, that is as one top-level field.
 */
export function boundJournalField<T>(value: T): T {
  return withinBounds(value, 1, MAX_STORED_CHARS) ? value : (bound(value, 1) as T);
}

const MAX_DEPTH = 8;

/** Whether every string and list in a value is within bounds (then it is stored as it is). */
function withinBounds(value: unknown, depth: number, max: number): boolean {
  if (typeof value === 'string') return value.length <= max;
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (value.length > MAX_STORED_ITEMS) return false;
    for (const v of value) if (!withinBounds(v, depth + 1, MAX_STORED_CHARS)) return false;
    return true;
  }
  let keys = 0;
  for (const k in value) {
    if (++keys > MAX_STORED_ITEMS || k.length > MAX_STORED_CHARS) return false;
    if (!withinBounds((value as Record<string, unknown>)[k], depth + 1, depth === 0 && k === 'path' ? MAX_STORED_PATH_CHARS : MAX_STORED_CHARS)) return false;
  }
  return true;
}

function bound(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return boundText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  // What JSON.stringify would write of it (an exact JSON-RPC id writes a number), not its fields.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return bound(toJSON.call(value), depth + 1);
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_STORED_ITEMS).map((v) => bound(v, depth + 1));
    if (value.length > MAX_STORED_ITEMS) kept.push(`…(${value.length - MAX_STORED_ITEMS} more)`);
    return kept;
  }
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const k in value) {
    if (++keys > MAX_STORED_ITEMS) break;
    out[boundText(k)] = bound((value as Record<string, unknown>)[k], depth + 1);
  }
  return out;
}
