/**
 * The journal's in-memory ring: each entry kept as the UTF-8 bytes of its JSON line, written one
 * after another into large fixed chunks, not as the entry object.
 *
 * Why: an entry is an object graph of some forty values (arrays grown by push with room to spare,
 * strings built piece by piece, numbers boxed on the heap) that lives for ten thousand requests.
 * On the injected-error path the entries were most of what V8 moved into its old generation per
 * request; V8 lets the old generation grow to a multiple of what it marks, and freed entries left
 * holes in pages that still held younger ones, so the old generation settled near four times
 * what it held. Kept as bytes in chunks, a line costs a few numbers on the heap and its own length outside
 * it; nothing long-lived is allocated per request, and a chunk whose lines have all been forgotten
 * is reused for the next lines as a whole. The text is the one a sink writes anyway (the journal
 * file and /events share it, src/journal/line.ts); readers, rare next to writers, decode and parse.
 *
 * With no journal file, a line is kept without its text (src/journal/entry-shape.ts): the
 * per-request values of its entry as a short JSON array, then the request's body when the request
 * facts were left for later, and the entry's shape beside it; the text is written when it is read.
 * The byte budget counts the bytes kept.
 */
import { boundReached } from '../common/bound-counts.js';
import { DEFAULT_SESSION } from './entry.js';
import type { EntryShape } from './entry-shape.js';

/** Bytes of one chunk; a longer line gets a chunk of its own. */
export const RING_CHUNK_BYTES = 1024 * 1024;
/** How every line the proxy writes begins (buildJournalEntry puts the id first), and a line kept by shape. */
const ID_PREFIX = Buffer.from('{"id":"');
const SHAPED_ID_PREFIX = Buffer.from('["');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class LineRing {
  /** Lines from `head` on are the ring, oldest first: where each one's bytes are, and what it counts. */
  private chunkOf: Buffer[] = [];
  private starts: number[] = [];
  private ends: number[] = [];
  private sizes: number[] = [];
  /** The session each line names; undefined for the default session. */
  private sessions: (string | undefined)[] = [];
  /** The shape of a line kept without its text; undefined for a line kept as text. */
  private shapes: (EntryShape | undefined)[] = [];
  /** Where the request's body starts in a line kept by shape, when its facts were left for later; -1 otherwise. */
  private bodyStarts: number[] = [];
  private head = 0;
  private bytes = 0;
  /** The chunk lines are written into, and where the next one goes. */
  private writing: Buffer;
  private writeAt = 0;
  /** A chunk all of whose lines were forgotten, kept for reuse. */
  private spare: Buffer | undefined;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {
    this.writing = Buffer.allocUnsafeSlow(RING_CHUNK_BYTES);
  }

  /** Lines in the ring now. */
  get size(): number {
    return this.chunkOf.length - this.head;
  }

  /** Bytes of the lines in the ring as kept (their text, or their values and body): what the byte budget counts. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** Bytes held for the ring's text, outside the JavaScript heap: every chunk it holds. */
  get chunkBytes(): number {
    const chunks = new Set<Buffer>([this.writing, ...this.chunkOf.slice(this.head)]);
    if (this.spare) chunks.add(this.spare);
    let total = 0;
    for (const c of chunks) total += c.length;
    return total;
  }

  /** Adds a line (the byte budget counts its UTF-8 bytes), forgetting the oldest past the bounds. */
  push(line: string, session: string | undefined): void {
    const length = Buffer.byteLength(line);
    if (length > this.writing.length - this.writeAt) this.startChunk(length);
    const start = this.writeAt;
    this.writeAt += this.writing.write(line, start);
    this.added(start, session, undefined, -1);
  }

  /**
   * Adds a line kept by shape: its per-request values (entry-shape.ts), and the request's body
   * when its facts were left for later.
   */
  pushShaped(shape: EntryShape, values: readonly unknown[], body: Buffer | undefined, session: string | undefined): void {
    const record = JSON.stringify(values);
    // No more than three bytes per UTF-16 unit: room is made without measuring the text first.
    const room = record.length * 3 + (body?.length ?? 0);
    if (room > this.writing.length - this.writeAt) this.startChunk(room);
    const start = this.writeAt;
    this.writeAt += this.writing.write(record, start);
    const bodyStart = body === undefined ? -1 : this.writeAt;
    if (body !== undefined) this.writeAt += body.copy(this.writing, this.writeAt);
    this.added(start, session, shape, bodyStart);
  }

  /** Records the line just written from `start` to the write position, then holds the ring to its bounds. */
  private added(start: number, session: string | undefined, shape: EntryShape | undefined, bodyStart: number): void {
    const size = this.writeAt - start;
    this.chunkOf.push(this.writing);
    this.starts.push(start);
    this.ends.push(this.writeAt);
    this.sizes.push(size);
    this.sessions.push(session);
    this.shapes.push(shape);
    this.bodyStarts.push(bodyStart);
    this.bytes += size;
    while (this.size > this.maxLines || (this.bytes > this.maxBytes && this.size > 1)) {
      this.forgetOldest();
      boundReached('journal_ring');
    }
    // Forgotten lines are dropped from the arrays now and then, not on every request.
    if (this.head > 1024 && this.head * 2 > this.chunkOf.length) this.keep(() => true);
  }

  /** The indexes of the ring's lines (of one session, when given), in the order their requests finished. */
  indexes(session?: string): number[] {
    const out: number[] = [];
    for (let i = this.head; i < this.chunkOf.length; i++) if (session === undefined || (this.sessions[i] ?? DEFAULT_SESSION) === session) out.push(i);
    return out;
  }

  /** The text of line `i` (an index from `indexes`, valid until the next push or clear). */
  line(i: number): string {
    const chunk = this.chunkOf[i]!;
    const shape = this.shapes[i];
    if (shape === undefined) return chunk.toString('utf8', this.starts[i], this.ends[i]);
    const bodyStart = this.bodyStarts[i]!;
    const values = JSON.parse(chunk.toString('utf8', this.starts[i], bodyStart < 0 ? this.ends[i] : bodyStart)) as unknown[];
    return shape.line(values, bodyStart < 0 ? undefined : chunk.subarray(bodyStart, this.ends[i]));
  }

  /** The entry id of line `i`, read from the line's start without decoding the rest when it can be. */
  idOf(i: number): string {
    const chunk = this.chunkOf[i]!;
    const prefix = this.shapes[i] === undefined ? ID_PREFIX : SHAPED_ID_PREFIX;
    const start = this.starts[i]! + prefix.length;
    const end = this.ends[i]!;
    if (start < end && chunk.compare(prefix, 0, prefix.length, start - prefix.length, start) === 0) {
      const close = chunk.indexOf(QUOTE, start);
      if (close > 0 && close < end && chunk.subarray(start, close).indexOf(BACKSLASH) < 0) return chunk.toString('utf8', start, close);
    }
    return (JSON.parse(this.line(i)) as { id: string }).id;
  }

  /** Empties the ring, or drops one session's lines from it. */
  clear(session?: string): void {
    this.keep(session === undefined ? () => false : (i) => (this.sessions[i] ?? DEFAULT_SESSION) !== session);
  }

  private forgetOldest(): void {
    const chunk = this.chunkOf[this.head]!;
    this.bytes -= this.sizes[this.head]!;
    this.head += 1;
    // Lines sit in their chunks in ring order: once the oldest line left is elsewhere, no line is in this chunk.
    const stillUsed = chunk === this.writing || (this.head < this.chunkOf.length && this.chunkOf[this.head] === chunk);
    if (!stillUsed && chunk.length === RING_CHUNK_BYTES) this.spare = chunk;
  }

  /** Continues in a fresh chunk (the spare one when it is big enough) with room for `length` bytes. */
  private startChunk(length: number): void {
    if (length <= RING_CHUNK_BYTES && this.spare) {
      this.writing = this.spare;
      this.spare = undefined;
    } else {
      this.writing = Buffer.allocUnsafeSlow(Math.max(RING_CHUNK_BYTES, length));
    }
    this.writeAt = 0;
  }

  /** Keeps the lines of the ring that `keepLine` (given a line's index) accepts, and only those. */
  private keep(keepLine: (i: number) => boolean): void {
    const kept = this.indexes().filter(keepLine);
    const pick = <T>(list: T[]): T[] => kept.map((i) => list[i]!);
    this.chunkOf = pick(this.chunkOf);
    this.starts = pick(this.starts);
    this.ends = pick(this.ends);
    this.sessions = pick(this.sessions);
    this.sizes = pick(this.sizes);
    this.shapes = pick(this.shapes);
    this.bodyStarts = pick(this.bodyStarts);
    this.head = 0;
    this.bytes = this.sizes.reduce((sum, n) => sum + n, 0);
  }
}
