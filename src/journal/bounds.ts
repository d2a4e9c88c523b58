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
  if (measureWithinBounds(entry, 0, MAX_STORED_CHARS) >= 0) return entry;
  const out = bound(entry, 0) as Record<string, unknown>;
  // The path is already limited by Node's 16 KiB header limit; it is kept longer than other strings.
  const path = (entry as { path?: unknown }).path;
  if (typeof path === 'string') out.path = boundText(path, MAX_STORED_PATH_CHARS);
  return out as T;
}

const MAX_DEPTH = 8;

/**
 * approxBytes of a value when every string and list in it is within bounds, else -1: the bounds
 * check and the size in one walk.
 */
function measureWithinBounds(value: unknown, depth: number, max: number): number {
  if (typeof value === 'string') return value.length <= max ? 16 + value.length * 2 : -1;
  if (value === null || typeof value !== 'object') return 16;
  if (depth >= MAX_DEPTH) return -1;
  let total = 32;
  if (Array.isArray(value)) {
    if (value.length > MAX_STORED_ITEMS) return -1;
    for (const v of value) {
      const n = measureWithinBounds(v, depth + 1, MAX_STORED_CHARS);
      if (n < 0) return -1;
      total += n;
    }
    return total;
  }
  let keys = 0;
  for (const k in value) {
    if (++keys > MAX_STORED_ITEMS || k.length > MAX_STORED_CHARS) return -1;
    const n = measureWithinBounds((value as Record<string, unknown>)[k], depth + 1, depth === 0 && k === 'path' ? MAX_STORED_PATH_CHARS : MAX_STORED_CHARS);
    if (n < 0) return -1;
    total += 16 + k.length * 2 + n;
  }
  return total;
}
function bound(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return boundText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
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

/** About how many bytes a journal line holds in memory: its strings and a fixed cost per value. */
export function approxBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return 16 + value.length * 2;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return 16;
  let total = 32;
  if (Array.isArray(value)) for (const v of value) total += approxBytes(v, depth + 1);
  else for (const k in value) total += 16 + k.length * 2 + approxBytes((value as Record<string, unknown>)[k], depth + 1);
  return total;
}
