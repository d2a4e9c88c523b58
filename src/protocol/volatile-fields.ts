/**
 * Which fields of an AAP exchange change from one run to the next without meaning anything:
 * generated ids (JSON-RPC id, messageId, task and context ids, error ids, lead and appointment
 * ids, idempotency keys) and timestamps. Matching a request to a recorded one and comparing a
 * recorded reply with a live one both look past them.
 */
import { createHash } from 'node:crypto';

const VOLATILE_KEYS: ReadonlySet<string> = new Set([
  'messageId',
  'contextId',
  'taskId',
  'artifactId',
  'error_id',
  'lead_id',
  'appointment_id',
  'idempotency_key',
  'timestamp',
  // A retried or replayed reply is a different task to the dealer; only its content counts.
  'referenceTaskIds',
]);

/** True for a key whose value is generated per request: an id or a timestamp (`…_at`). */
export function isVolatileKey(key: string, parent: Record<string, unknown>, depth: number): boolean {
  if (VOLATILE_KEYS.has(key) || key.endsWith('_at')) return true;
  // The JSON-RPC id, and a task's own id (a task object carries its contextId beside it).
  return key === 'id' && (depth === 0 || 'contextId' in parent);
}

/** Deeper than this a value is compared as text: no AAP message nests that far. */
const MAX_DEPTH = 32;

/** One token as it is written in a pointer. */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** True when `pointer` is one of `ignored` or lies under one of them. */
export function isIgnoredPointer(pointer: string, ignored: readonly string[]): boolean {
  return ignored.some((p) => pointer === p || pointer.startsWith(p + '/'));
}

/** A copy with volatile members and the ignored pointers left out, keys sorted: what two requests are compared by. */
export function stableView(value: unknown, ignored: readonly string[] = [], pointer = '', depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return JSON.stringify(value);
  if (Array.isArray(value))
    return value.map((v, i) => stableView(v, ignored, `${pointer}/${i}`, depth + 1)).filter((_, i) => !isIgnoredPointer(`${pointer}/${i}`, ignored));
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const at = `${pointer}/${pointerToken(key)}`;
    if (isVolatileKey(key, record, depth) || isIgnoredPointer(at, ignored)) continue;
    out[key] = stableView(record[key], ignored, at, depth + 1);
  }
  return out;
}

/** The canonical hash of a request's DataPart (or params): the same request, whatever its ids and times. */
export function canonicalHash(value: unknown, ignored: readonly string[] = []): string {
  return createHash('sha256')
    .update(JSON.stringify(stableView(value, ignored)) ?? 'null')
    .digest('hex')
    .slice(0, 16);
}
