/**
 * A journal entry kept without its text. The entries of one kind of traffic repeat most of their
 * fields (path, skill, the rules that matched, the outcome, the profile), so the ring keeps one
 * entry of each shape and, per request, only the values that differ by nature (ids, times, the
 * error member) and, when the request facts were left out, the request's body to take them from.
 * A line is written only when it is read, and is the text JSON.stringify gives of the entry built
 * whole: the same keys in the same order, each with a value of the same JSON (a value that went
 * through JSON once writes the same text again).
 *
 * Why: with no journal file and no one reading, the line's text, the request hash and the schema
 * check were most of the journal's work per request (docs/performance.md, "The journal line built
 * only when read"). Entry objects are not kept instead: they were the old generation's growth
 * that line-ring.ts was written to end.
 */
import { boundJournalField } from '../common/bounds.js';
import { skillDataOfBody } from '../protocol/classify.js';
import { requestFacts, type RequestFacts } from './build-entry.js';
import type { JournalEntry } from './entry.js';

/** Fields kept per request and never compared: they differ from one request to the next by nature. */
const PER_REQUEST: ReadonlySet<string> = new Set([
  'id',
  'ts',
  't',
  'duration_ms',
  'client',
  'session',
  'rpc_id',
  'request_hash',
  'idempotency_key',
  'vehicle',
  'request_problems',
  'effects',
  'error_id',
  'retry_after_ms',
  'listed_problems',
  'reply_error',
  'upstream_ms',
  'notes',
  'conformance',
]);

/** Shapes tried for each entry, the most recently used first. */
const MAX_SHAPES = 8;
/** At most one line in this many gets a shape of its own (its entry is kept while the line is). */
const LINES_PER_NEW_SHAPE = 16;
/** Deeper than this, values are not compared: such an entry is kept as text. */
const MAX_COMPARED_DEPTH = 16;

type Fields = Record<string, unknown>;

/** Whether two values write the same JSON, decided without writing it; false when unsure. */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_COMPARED_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b) || typeof (a as { toJSON?: unknown }).toJSON === 'function' || typeof (b as { toJSON?: unknown }).toJSON === 'function') return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i] || !sameJson((a as Fields)[key], (b as Fields)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * The entry `keys` and `valueOf` stand for, with the request facts (when given) put where
 * buildJournalEntry puts them: the hash right after `skill`, the problems right before `matched`.
 */
function assemble(keys: readonly string[], valueOf: (key: string) => unknown, facts: RequestFacts | undefined): Fields {
  const out: Fields = {};
  for (const key of keys) {
    if (facts?.request_problems !== undefined && key === 'matched') out.request_problems = boundJournalField(facts.request_problems);
    out[key] = valueOf(key);
    if (facts !== undefined && key === 'skill') out.request_hash = facts.request_hash;
  }
  return out;
}

/** The request facts of an entry built without them, taken from the request's body. */
function factsOf(skill: unknown, body: Buffer): RequestFacts {
  return requestFacts(String(skill), skillDataOfBody(body));
}

/** The keys JSON.stringify writes of an entry: those whose value is not undefined, in order. */
function writtenKeys(entry: JournalEntry): string[] {
  const keys: string[] = [];
  for (const key in entry) if ((entry as unknown as Fields)[key] !== undefined) keys.push(key);
  return keys;
}

/** An entry built without its request facts, made whole from the request's body (the line written at once). */
export function withRequestFacts(entry: JournalEntry, body: Buffer): JournalEntry {
  const fields = entry as unknown as Fields;
  return assemble(writtenKeys(entry), (key) => fields[key], factsOf(entry.skill, body)) as unknown as JournalEntry;
}

/** One shape: an entry whose fields other than the per-request ones repeat, and the keys it writes. */
export class EntryShape {
  private readonly keys: readonly string[];

  constructor(private readonly exemplar: JournalEntry) {
    this.keys = writtenKeys(exemplar);
  }

  /** Whether the line starts with its id, as every line the proxy writes does (the ring reads ids without writing lines). */
  get startsWithId(): boolean {
    return this.keys[0] === 'id' && typeof this.exemplar.id === 'string';
  }

  /** The per-request values of `entry`, in key order, when it has this shape; undefined when it has not. */
  valuesOf(entry: JournalEntry): unknown[] | undefined {
    const keys = this.keys;
    const exemplar = this.exemplar as unknown as Fields;
    const values: unknown[] = [];
    let i = 0;
    for (const key in entry) {
      const value = (entry as unknown as Fields)[key];
      if (value === undefined) continue;
      if (keys[i++] !== key) return undefined;
      if (PER_REQUEST.has(key)) values.push(value);
      else if (!sameJson(exemplar[key], value, 0)) return undefined;
    }
    return i === keys.length ? values : undefined;
  }

  /** The line (with its newline) of the entry this shape and `values` stand for; `body` when its request facts were left out. */
  line(values: readonly unknown[], body: Buffer | undefined): string {
    const exemplar = this.exemplar as unknown as Fields;
    let next = 0;
    const entry = assemble(
      this.keys,
      (key) => (PER_REQUEST.has(key) ? values[next++] : exemplar[key]),
      body === undefined ? undefined : factsOf(exemplar.skill, body),
    );
    return JSON.stringify(entry) + '\n';
  }
}

/** The shapes the journal has seen lately, and how often a new one may be made. */
export class ShapeTable {
  private shapes: EntryShape[] = [];
  private made = 0;
  private placed = 0;

  /** The shape of `entry` and its per-request values; undefined when the entry is better kept as text. */
  place(entry: JournalEntry): { shape: EntryShape; values: unknown[] } | undefined {
    const shapes = this.shapes;
    for (let i = 0; i < shapes.length; i++) {
      const values = shapes[i]!.valuesOf(entry);
      if (values === undefined) continue;
      const shape = shapes[i]!;
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(shape);
      }
      this.placed++;
      return { shape, values };
    }
    // Traffic with no repeating shape would keep an entry object per line: such lines are kept as text.
    if (this.made >= MAX_SHAPES + this.placed / LINES_PER_NEW_SHAPE) return undefined;
    const shape = new EntryShape(entry);
    const values = shape.valuesOf(entry);
    if (values === undefined || !shape.startsWithId) return undefined;
    shapes.unshift(shape);
    if (shapes.length > MAX_SHAPES) shapes.pop();
    this.made++;
    this.placed++;
    return { shape, values };
  }
}
