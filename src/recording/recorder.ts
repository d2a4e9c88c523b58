/**
 * Appends exchanges to a recording as they pass. The proxy hands a tap the dealer's reply chunks
 * as it streams them to the buyer; the tap only keeps them (and, for SSE, when each arrived).
 * Everything else (splitting events, scrubbing personal data, serializing, writing) happens once
 * the reply is out, on a later turn of the event loop: recording never holds a reply back.
 * Bounded by `maxBytes` for the whole file: the first line that would pass it stops the
 * recording with one message, and nothing after it is written (never half a line).
 */
import { boundReached } from '../common/bound-counts.js';
import { openLogFileSync } from '../common/log-file.js';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { ClassifiedRequest } from '../protocol/classify.js';
import { scrubParams, scrubReply, scrubSkillData, scrubText, withoutSecrets } from '../protocol/personal-data.js';
import { isSecretHeaderName, knownValuesOf } from '../protocol/secret-text.js';
import { RECORDING_FORMAT, type CardLine, type ExchangeLine, type RecordedReply, type RecordedRequest, type RecordingLine } from './format.js';
import { splitSseEvents } from './sse-events.js';

export const DEFAULT_RECORD_MAX_BYTES = 100 * 1024 * 1024;

export interface RecorderOptions {
  file: string;
  /** The whole file's size limit, what it held before included. */
  maxBytes?: number;
  /** The dealer recorded (its origin goes in the session line). */
  target: string;
  /** Where the one "recording stopped" message goes. */
  log?: (line: string) => void;
  /** Response header names whose values are secrets, besides those `isSecretHeaderName` knows (--redact-header). */
  secretHeaders?: readonly string[];
  /** Told of each exchange once its line is written (a replay learns what it passed through). */
  onRecorded?: (line: ExchangeLine) => void;
}

/** The file could not be opened; the message names it and the cause. */
export class RecordingOpenError extends Error {
  override name = 'RecordingOpenError';
}

/** Response headers about this one transfer (framing, date), not the content: a replay sets its own. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

export class Recorder {
  readonly file: string;
  readonly maxBytes: number;
  private readonly stream: WriteStream;
  private written: number;
  private stopped = false;
  private lastCard: string | undefined;
  private pending = 0;
  private readonly secretHeaders: Set<string>;

  private constructor(
    fd: number,
    size: number,
    private readonly opts: RecorderOptions,
  ) {
    this.file = opts.file;
    this.maxBytes = opts.maxBytes ?? DEFAULT_RECORD_MAX_BYTES;
    this.written = size;
    this.stream = createWriteStream('', { fd, flags: 'a' });
    // A write failure (disk full) stops the recording; it never reaches the request path.
    this.stream.on('error', (err) => this.stop(`recording stopped: writing ${this.file} failed (${(err as NodeJS.ErrnoException).code ?? err.message})`));
    this.secretHeaders = new Set((opts.secretHeaders ?? []).map((h) => h.toLowerCase()));
  }

  /** Opens (or creates, 0600) the file for appending and writes the session line; throws RecordingOpenError. */
  static open(opts: RecorderOptions): Recorder {
    let opened: { fd: number; size: number };
    try {
      opened = openLogFileSync(opts.file, '--record');
    } catch (err) {
      // The message names the flag already; RecordingOpenError's users add it themselves.
      throw new RecordingOpenError((err as Error).message.replace(/^--record: /, ''));
    }
    const recorder = new Recorder(opened.fd, opened.size, opts);
    recorder.append({ type: 'recording', format: RECORDING_FORMAT, started_at: new Date().toISOString(), target: new URL(opts.target).origin });
    return recorder;
  }

  get full(): boolean {
    return this.stopped;
  }

  /** The dealer's agent card, kept each time it differs from the one kept last. */
  card(card: unknown): void {
    if (this.stopped || card === null || typeof card !== 'object' || Array.isArray(card)) return;
    this.later(() => {
      const text = JSON.stringify(card);
      if (text === this.lastCard) return;
      this.lastCard = text;
      const line: CardLine = { type: 'card', at: new Date().toISOString(), card: withoutSecrets(card) as Record<string, unknown> };
      this.append(line);
    });
  }

  /**
   * A tap for the dealer's reply to one JSON-RPC request, or undefined when there is nothing to
   * record (not JSON-RPC, or the recording is full). `startedAt` is the request's performance.now().
   */
  tap(request: ClassifiedRequest, status: number, headers: Record<string, string | string[]>, startedAt: number): ReplyTap | undefined {
    if (request.kind !== 'jsonrpc') return undefined;
    if (this.stopped) {
      boundReached('recording');
      return undefined;
    }
    const contentType = String(headers['content-type'] ?? '');
    // A copy: the proxy goes on changing its own headers object for the buyer's reply.
    return new ReplyTap(this, request, status, { ...headers }, startedAt, contentType.startsWith('text/event-stream'), this.maxBytes - this.written);
  }

  /** Turns a finished tap into its line (on a later turn: the reply is already out). */
  finish(tap: ReplyTap): void {
    this.later(() => {
      if (this.stopped) return;
      if (tap.overBudget) {
        this.stop(this.fullMessage());
        return;
      }
      const line = this.exchangeLine(tap);
      if (this.append(line)) this.opts.onRecorded?.(line);
    });
  }

  /** Waits for lines still being built and written, then closes the file. */
  async close(): Promise<void> {
    while (this.pending > 0) await new Promise((r) => setImmediate(r));
    await new Promise<void>((resolve) => this.stream.end(resolve));
  }

  private later(work: () => void): void {
    this.pending++;
    setImmediate(() => {
      try {
        work();
      } finally {
        this.pending--;
      }
    });
  }

  private exchangeLine(tap: ReplyTap): ExchangeLine {
    const { request } = tap;
    const scrubbed = scrubSkillData(request.skill, request.skillData);
    // What the request carried as secrets and personal data, looked for in the reply by value.
    const known = knownValuesOf(request.headers, request.body, request.skillData, this.opts.secretHeaders);
    const recorded: RecordedRequest = { path: request.path, method: request.rpcMethod!, id: request.id as RecordedRequest['id'] };
    if (request.skill) {
      recorded.skill = request.skill;
      recorded.part = { ...skillPartOf(request), data: scrubbed.data };
    } else if (request.body?.params !== undefined) recorded.params = scrubParams(request.body.params);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(tap.headers))
      if (!FRAMING_HEADERS.has(name) && !isSecretHeaderName(name) && !this.secretHeaders.has(name)) headers[name] = value;
    const reply: RecordedReply = { status: tap.status, headers };
    const bytes = Buffer.concat(tap.chunks);
    const encoded = headers['content-encoding'] !== undefined && headers['content-encoding'] !== 'identity';
    if (bytes.length === 0) {
      // no body
    } else if (encoded) reply.base64 = bytes.toString('base64');
    else if (tap.sse)
      reply.events = splitSseEvents(tap.chunks, tap.arrivedMs).map((e) => ({
        ...e,
        offset_ms: round(e.offset_ms),
        ...(e.data !== undefined ? { data: scrubReply(e.data, scrubbed.replaced, known) } : { text: scrubText(e.text!, scrubbed.replaced, known) }),
      }));
    else {
      const text = bytes.toString('utf8');
      try {
        reply.body = scrubReply(JSON.parse(text), scrubbed.replaced, known);
      } catch {
        if (Buffer.from(text, 'utf8').equals(bytes)) reply.text = scrubText(text, scrubbed.replaced, known);
        else reply.base64 = bytes.toString('base64');
      }
    }
    return { type: 'exchange', at: new Date(tap.wallStart).toISOString(), duration_ms: round(tap.endedAt - tap.startedAt), request: recorded, reply };
  }

  /** Writes one line if it fits; the first that does not stops the recording. */
  private append(line: RecordingLine): boolean {
    if (this.stopped) return false;
    const text = JSON.stringify(line) + '\n';
    const size = Buffer.byteLength(text);
    if (this.written + size > this.maxBytes) {
      this.stop(this.fullMessage());
      return false;
    }
    this.written += size;
    this.stream.write(text);
    return true;
  }

  private fullMessage(): string {
    return `recording stopped: ${this.file} reached --record-max-bytes (${this.maxBytes} bytes); later exchanges are not recorded, the proxy keeps running`;
  }

  private stop(message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.log?.(message);
  }
}

/** The skill's DataPart as sent, apart from its data (which is scrubbed separately). */
function skillPartOf(request: ClassifiedRequest): Record<string, unknown> {
  const parts = (request.body?.params as { message?: { parts?: unknown } } | undefined)?.message?.parts;
  const part = Array.isArray(parts)
    ? (parts.find((p) => (p as { data?: unknown } | null)?.data === request.skillData) as Record<string, unknown> | undefined)
    : undefined;
  const out: Record<string, unknown> = {};
  if (part && typeof part.mediaType === 'string') out.mediaType = part.mediaType;
  if (part && part.metadata !== undefined) out.metadata = withoutSecrets(part.metadata);
  return out;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * One reply on its way to the buyer: what the proxy hands it costs an array push (and a clock
 * read for SSE). Past the recording's room it stops keeping chunks, so memory stays bounded.
 */
export class ReplyTap {
  readonly chunks: Buffer[] = [];
  readonly arrivedMs: number[] = [];
  readonly wallStart = Date.now();
  endedAt = 0;
  overBudget = false;
  private size = 0;

  constructor(
    private readonly recorder: Recorder,
    readonly request: ClassifiedRequest,
    readonly status: number,
    readonly headers: Record<string, string | string[]>,
    readonly startedAt: number,
    readonly sse: boolean,
    private readonly room: number,
  ) {
    this.wallStart -= performance.now() - startedAt;
  }

  push(chunk: Buffer): void {
    if (this.overBudget) return;
    if ((this.size += chunk.length) > this.room) {
      this.overBudget = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(chunk);
    if (this.sse) this.arrivedMs.push(performance.now() - this.startedAt);
  }

  /** The reply is complete; its line is built on a later turn. */
  end(): void {
    this.endedAt = performance.now();
    this.recorder.finish(this);
  }
}
