/**
 * The journal's in-memory ring, holding each entry as its JSON line (one flat string) rather than
 * as the entry object. An entry is an object graph of some forty values (arrays grown by push with
 * room to spare, strings built piece by piece, numbers boxed on the heap) that lives for ten
 * thousand requests: on the injected-error path that graph made up most of what V8 promoted to its
 * old generation per request, and V8 sizes the old generation as a multiple of what it has to
 * mark, so the heap (and RSS) settled near four times the ring. A line is one object the collector
 * never looks inside, about half the bytes, and the text a sink would write anyway (the journal
 * file and /events share it, src/journal/line.ts). Readers, rare next to writers, parse on read.
 */
import type { JournalEntry } from './entry.js';
import { DEFAULT_SESSION } from './entry.js';

/** The prefix of every line the proxy writes (buildJournalEntry puts the id first). */
const ID_PREFIX = '{"id":"';

/** The id of a line: read from its start when it opens with a plain id, parsed otherwise. */
export function idOfLine(line: string): string {
  if (line.startsWith(ID_PREFIX)) {
    const end = line.indexOf('"', ID_PREFIX.length);
    const id = end > 0 ? line.slice(ID_PREFIX.length, end) : '\\';
    if (!id.includes('\\')) return id;
  }
  return (JSON.parse(line) as JournalEntry).id;
}

export class LineRing {
  /** Lines from `head` on are the ring, oldest first; `sizes` and `sessions` run alongside. */
  private lines: string[] = [];
  private sizes: number[] = [];
  /** The session each line names; undefined for the default session. */
  private sessions: (string | undefined)[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  /** Lines in the ring now. */
  get size(): number {
    return this.lines.length - this.head;
  }

  /** Adds a line of `size` bytes (as the journal counts them), forgetting the oldest past the bounds. */
  push(line: string, size: number, session: string | undefined): void {
    this.lines.push(line);
    this.sizes.push(size);
    this.sessions.push(session);
    this.bytes += size;
    while (this.size > this.maxLines || (this.bytes > this.maxBytes && this.size > 1)) {
      this.bytes -= this.sizes[this.head]!;
      this.head += 1;
    }
    // Forgotten lines are dropped from the arrays now and then, not on every request.
    if (this.head > 1024 && this.head * 2 > this.lines.length) this.keep(() => true);
  }

  /** The lines of the ring (of one session, when given), in the order their requests finished. */
  select(session?: string): string[] {
    if (session === undefined) return this.lines.slice(this.head);
    const out: string[] = [];
    for (let i = this.head; i < this.lines.length; i++) if ((this.sessions[i] ?? DEFAULT_SESSION) === session) out.push(this.lines[i]!);
    return out;
  }

  /** Empties the ring, or drops one session's lines from it. */
  clear(session?: string): void {
    this.keep(session === undefined ? () => false : (i) => (this.sessions[i] ?? DEFAULT_SESSION) !== session);
  }

  /** Keeps the lines of the ring that `keepLine` (given a line's index) accepts, and only those. */
  private keep(keepLine: (i: number) => boolean): void {
    const lines: string[] = [];
    const sizes: number[] = [];
    const sessions: (string | undefined)[] = [];
    let bytes = 0;
    for (let i = this.head; i < this.lines.length; i++) {
      if (!keepLine(i)) continue;
      lines.push(this.lines[i]!);
      sizes.push(this.sizes[i]!);
      sessions.push(this.sessions[i]);
      bytes += this.sizes[i]!;
    }
    this.lines = lines;
    this.sizes = sizes;
    this.sessions = sessions;
    this.head = 0;
    this.bytes = bytes;
  }
}
