/**
 * The journal: every finished request as one JSON line. A bounded in-memory ring serves the admin
 * API and the library; an optional JSONL file keeps the full history. The request path only pushes
 * a string into a buffer — the file is written later, in batches, one write at a time, so a slow
 * disk never delays a buyer; rotating the file happens between two batches, in the same queue.
 * With no file, the ring keeps entries by shape and writes a line only when it is read.
 */
import { RotatingFile, type RotationSettings } from '../common/rotating-file.js';
import type { RequestObserver } from './entry.js';
import type { JournalEntry } from './entry.js';
import { journalLine } from './line.js';
import type { ReplyOutcome } from './outcome.js';
import { LineRing } from './line-ring.js';
import { ShapeTable, withRequestFacts } from './entry-shape.js';

export const DEFAULT_JOURNAL_RING = 10_000;
/** The ring also forgets its oldest entries past about this many bytes (docs/reliability.md). */
export const DEFAULT_JOURNAL_RING_BYTES = 64 * 1024 * 1024;
/** Past this many bytes waiting for the disk, new lines are dropped (and counted) instead of piling up in memory. */
export const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;

export interface JournalOptions {
  /** How many recent entries the ring keeps (default 10 000). */
  ringSize?: number;
  /** About how many bytes of entries the ring keeps (default 64 MiB). */
  ringBytes?: number;
  /** JSONL file the entries are appended to. */
  file?: string;
  maxPendingBytes?: number;
  /** Called once per line that could not be written to the file. */
  onDrop?: (count: number) => void;
  /** Size rotation of the file (--journal-max-bytes, --journal-keep, --journal-compress). */
  rotation?: RotationSettings;
  /** Called each time the file rotates. */
  onRotate?: () => void;
}

export interface JournalQuery {
  /** Only entries after this ULID (see `entries`). */
  since?: string;
  /** At most this many, the oldest first. */
  limit?: number;
  /** At most this many, the newest (still listed oldest first); with `limit`, the newest of those. */
  last?: number;
  /** Only entries of this session (`default`: those that named none). */
  session?: string;
  /** Only entries whose fields hold these values (a rule: one that fired). */
  match?: JournalMatch;
}

/** What a reader may look for in journal lines; every field given must hold. */
export interface JournalMatch {
  skill?: string;
  outcome?: ReplyOutcome;
  client?: string;
  /** A rule that fired on the request. */
  rule?: string;
}

/** The first `limit`, then the last `last` of those. */
function takeSome<T>(items: T[], { limit, last }: JournalQuery): T[] {
  const first = limit === undefined ? items : items.slice(0, limit);
  return last === undefined ? first : first.slice(Math.max(0, first.length - last));
}

function matches(entry: JournalEntry, match: JournalMatch): boolean {
  return (
    (match.skill === undefined || entry.skill === match.skill) &&
    (match.outcome === undefined || entry.outcome === match.outcome) &&
    (match.client === undefined || entry.client === match.client) &&
    (match.rule === undefined || entry.fired.includes(match.rule))
  );
}

export class Journal implements RequestObserver {
  readonly ringSize: number;
  readonly file: string | undefined;
  /** Lines that never reached the file (buffer full or write failure). */
  dropped = 0;
  readonly ringBytes: number;
  /** The recent entries, as their JSON lines or by shape (src/journal/line-ring.ts says why). */
  private readonly ring: LineRing;
  private readonly shapes = new ShapeTable();
  private readonly writer: BatchWriter | undefined;

  constructor(opts: JournalOptions = {}) {
    this.ringSize = Math.max(1, opts.ringSize ?? DEFAULT_JOURNAL_RING);
    this.ringBytes = Math.max(1, opts.ringBytes ?? DEFAULT_JOURNAL_RING_BYTES);
    this.ring = new LineRing(this.ringSize, this.ringBytes);
    this.file = opts.file;
    if (opts.file) {
      const onDrop = (n: number) => {
        this.dropped += n;
        opts.onDrop?.(n);
      };
      this.writer = new BatchWriter(opts.file, opts.rotation ?? {}, opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES, onDrop, opts.onRotate ?? (() => {}));
    }
  }

  /** Opens the file; rejects with a clear message when it cannot be written. */
  async open(): Promise<void> {
    await this.writer?.open();
  }

  /** The file needs each line's text at once; the ring alone does not (entry-shape.ts). */
  readsWholeEntry(): boolean {
    return this.writer !== undefined;
  }

  onRequestDone(entry: JournalEntry, factsFrom?: Buffer): void {
    if (this.writer === undefined) {
      const placed = this.shapes.place(entry);
      if (placed !== undefined) {
        this.ring.pushShaped(placed.shape, placed.values, factsFrom, entry.session);
        return;
      }
    }
    // The same text the file and the /events clients get, serialized once for all of them.
    const line = journalLine(factsFrom === undefined ? entry : withRequestFacts(entry, factsFrom));
    this.ring.push(line, entry.session);
    this.writer?.append(line);
  }

  /** Entries in the ring now. */
  get size(): number {
    return this.ring.size;
  }

  /** Bytes the ring holds for its entries (their lines, or what it keeps to write them): what `ringBytes` bounds. */
  get keptBytes(): number {
    return this.ring.keptBytes;
  }

  /** Entries in the ring, in the order their requests finished. */
  all(): JournalEntry[] {
    return this.entries();
  }

  /**
   * Entries after `since`, oldest first. While `since` is still in the ring, "after" means
   * finished after it (a poller never misses a slow request that started earlier); once it has
   * left the ring, entries whose ULID sorts after it are returned.
   */
  entries(query: JournalQuery = {}): JournalEntry[] {
    return this.lines(query).map((line) => JSON.parse(line) as JournalEntry);
  }

  /** What `entries` returns, as JSON lines with their newlines (what GET /journal sends). */
  lines(query: JournalQuery = {}): string[] {
    const ring = this.ring;
    let at = ring.indexes(query.session);
    if (query.since !== undefined) {
      const since = query.since;
      const found = at.findIndex((i) => ring.idOf(i) === since);
      at = found >= 0 ? at.slice(found + 1) : at.filter((i) => ring.idOf(i) > since);
    }
    const { match } = query;
    // Only a query that looks inside the lines pays for reading every one of them.
    if (match === undefined || Object.values(match).every((v) => v === undefined)) return takeSome(at, query).map((i) => ring.line(i));
    const lines = at.map((i) => ring.line(i)).filter((line) => matches(JSON.parse(line) as JournalEntry, match));
    return takeSome(lines, query);
  }

  /** Entries of one session (`default`: those that named none), in finishing order. */
  ofSession(session: string): JournalEntry[] {
    return this.entries({ session });
  }

  /** Empties the ring, or drops one session's entries from it; the file keeps everything. */
  clear(session?: string): void {
    this.ring.clear(session);
  }

  /** Resolves once every line recorded so far is written to the file. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  /** Writes what is pending, then closes the file and opens its path again (SIGHUP after logrotate). */
  reopen(): Promise<void> {
    return this.writer?.reopen() ?? Promise.resolve();
  }

  /** Times the file rotated by size since the start. */
  get rotations(): number {
    return this.writer?.rotations ?? 0;
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.writer?.close();
  }
}

/**
 * Appends lines to one file in batches; never blocks the caller of `append`. One batch is written
 * at a time: lines that arrive meanwhile wait in memory (bounded) and go out together next. The
 * file rotates between batches, so a line is never split, and a batch is cut where the next line
 * would take the file past its size limit.
 */
class BatchWriter {
  private readonly out: RotatingFile;
  private pending: string[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  /** The pump writing batches, while it runs. */
  private pumping: Promise<void> | undefined;
  private reopenAsked = false;
  private failed: Error | undefined;

  constructor(
    file: string,
    rotation: RotationSettings,
    private readonly maxPendingBytes: number,
    private readonly onDrop: (count: number) => void,
    private readonly onRotate: () => void,
  ) {
    this.out = new RotatingFile(file, '--journal', rotation, (m) => process.emitWarning(`aap-chaos: ${m}`));
  }

  get rotations(): number {
    return this.out.rotations;
  }

  open(): Promise<void> {
    return this.out.open();
  }

  append(line: string): void {
    if (this.failed || this.pendingBytes + line.length > this.maxPendingBytes) {
      this.onDrop(1);
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.schedule();
  }

  /** Writes what is pending on a later turn: the request path only pays for an array push. */
  private schedule(): void {
    if (this.scheduled || this.pumping) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  private pump(): Promise<void> {
    this.pumping ??= this.writeAll().finally(() => {
      this.pumping = undefined;
      if (this.pending.length > 0 && !this.failed) this.schedule();
    });
    return this.pumping;
  }

  private async writeAll(): Promise<void> {
    while (this.reopenAsked || (this.pending.length > 0 && !this.failed)) {
      try {
        if (this.reopenAsked) await this.reopenNow();
        else await this.writeBatch();
      } catch (err) {
        this.fail(err as Error);
      }
    }
  }

  private async reopenNow(): Promise<void> {
    this.reopenAsked = false;
    await this.out.reopen();
    // A file that failed (a full disk, a removed directory) gets a fresh start from a reopen.
    this.failed = undefined;
  }

  private async writeBatch(): Promise<void> {
    if (this.out.wouldPass(Buffer.byteLength(this.pending[0]!))) {
      await this.out.rotate();
      this.onRotate();
    }
    let count = 0;
    let bytes = 0;
    for (const line of this.pending) {
      const size = Buffer.byteLength(line);
      if (count > 0 && !this.out.fits(bytes + size)) break;
      bytes += size;
      count++;
    }
    const lines = this.pending.splice(0, count);
    for (const line of lines) this.pendingBytes -= line.length;
    await this.out.write(lines.join(''));
  }

  /** Resolves once every line appended so far is written (or dropped). */
  async flush(): Promise<void> {
    while (this.pumping || this.reopenAsked || (this.pending.length > 0 && !this.failed)) await this.pump();
  }

  /** Closes the file and opens its path again (SIGHUP, after logrotate moved it). */
  async reopen(): Promise<void> {
    this.reopenAsked = true;
    await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.out.close();
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    process.emitWarning(
      `aap-chaos: journal file ${this.out.file} can no longer be written (${(err as NodeJS.ErrnoException).code ?? err.message}); further lines are dropped until SIGHUP reopens it`,
    );
    if (this.pending.length) this.onDrop(this.pending.length);
    this.pending = [];
    this.pendingBytes = 0;
  }
}
