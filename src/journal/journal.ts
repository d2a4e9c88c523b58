/**
 * The journal: every finished request as one JSON line. A bounded in-memory ring serves the admin
 * API and the library; an optional JSONL file keeps the full history. The request path only pushes
 * a string into a buffer — the file is written later, in batches, through one write stream, so a
 * slow disk never delays a buyer.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { RequestObserver } from './entry.js';
import type { JournalEntry } from './entry.js';
import { journalLine } from './line.js';
import type { ReplyOutcome } from './outcome.js';
import { LineRing } from './line-ring.js';

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
  /** The recent entries, as their JSON lines (src/journal/line-ring.ts says why). */
  private readonly ring: LineRing;
  private readonly writer: BatchWriter | undefined;

  constructor(opts: JournalOptions = {}) {
    this.ringSize = Math.max(1, opts.ringSize ?? DEFAULT_JOURNAL_RING);
    this.ringBytes = Math.max(1, opts.ringBytes ?? DEFAULT_JOURNAL_RING_BYTES);
    this.ring = new LineRing(this.ringSize, this.ringBytes);
    this.file = opts.file;
    if (opts.file) {
      this.writer = new BatchWriter(opts.file, opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES, (n) => {
        this.dropped += n;
        opts.onDrop?.(n);
      });
    }
  }

  /** Opens the file; rejects with a clear message when it cannot be written. */
  async open(): Promise<void> {
    await this.writer?.open();
  }

  onRequestDone(entry: JournalEntry): void {
    // The same text the file and the /events clients get, serialized once for all of them.
    const line = journalLine(entry);
    this.ring.push(line, entry.session);
    this.writer?.append(line);
  }

  /** Entries in the ring now. */
  get size(): number {
    return this.ring.size;
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

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.writer?.close();
  }
}

/** Appends lines to one file in batches; never blocks the caller of `append`. */
class BatchWriter {
  private stream: WriteStream | undefined;
  private pending: string[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  private waitingForDrain = false;
  /** Settles when the last batch handed to the stream is written. */
  private lastWrite: Promise<void> = Promise.resolve();
  private failed: Error | undefined;

  constructor(
    private readonly file: string,
    private readonly maxPendingBytes: number,
    private readonly onDrop: (count: number) => void,
  ) {}

  open(): Promise<void> {
    const stream = createWriteStream(this.file, { flags: 'a' });
    this.stream = stream;
    return new Promise((resolve, reject) => {
      stream.once('open', () => {
        stream.off('error', reject);
        stream.on('error', (err) => this.fail(err));
        resolve();
      });
      stream.once('error', (err: NodeJS.ErrnoException) => {
        reject(new Error(`cannot write the journal file ${this.file}: ${err.code ?? err.message}`));
      });
    });
  }

  append(line: string): void {
    if (this.failed || this.pendingBytes + line.length > this.maxPendingBytes) {
      this.onDrop(1);
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (!this.scheduled && !this.waitingForDrain) {
      this.scheduled = true;
      // One batch per turn of the event loop: the request path only pays for an array push.
      setImmediate(() => {
        this.scheduled = false;
        this.writeBatch();
      });
    }
  }

  private writeBatch(): void {
    const stream = this.stream;
    if (!stream || this.pending.length === 0 || this.failed) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    const previous = this.lastWrite;
    this.lastWrite = previous.then(() => written);
    const roomLeft = stream.write(chunk, () => done());
    if (!roomLeft) {
      // Keep collecting lines in memory until the disk catches up, then write them as one batch.
      this.waitingForDrain = true;
      stream.once('drain', () => {
        this.waitingForDrain = false;
        this.writeBatch();
      });
    }
  }

  async flush(): Promise<void> {
    // Hand everything over now, even while the stream is draining: it queues internally.
    this.writeBatch();
    await this.lastWrite;
  }

  async close(): Promise<void> {
    await this.flush();
    const stream = this.stream;
    if (!stream || stream.destroyed) return;
    await new Promise<void>((resolve) => stream.end(resolve));
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    process.emitWarning(
      `aap-chaos: journal file ${this.file} can no longer be written (${(err as NodeJS.ErrnoException).code ?? err.message}); further lines are dropped`,
    );
    if (this.pending.length) this.onDrop(this.pending.length);
    this.pending = [];
    this.pendingBytes = 0;
  }
}
