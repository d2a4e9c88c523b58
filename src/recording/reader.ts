/**
 * Reads a recording back. Bounded: the file's size, each line's size and its nesting depth are
 * checked before a line is parsed. A line that is cut short (the recorder was stopped while
 * writing) or malformed is reported with file:line — every problem at once, never a crash —
 * because a replay silently missing an exchange would answer differently from the dealer.
 */
import { readRegularFile } from '../common/regular-file.js';
import { originFormPath } from '../http/request-target.js';
import { nestingWithin } from './bounded-json.js';
import { RECORDING_FORMAT, type CardLine, type ExchangeLine, type RecordedEvent } from './format.js';

export interface RecordingLimits {
  maxFileBytes: number;
  maxLineBytes: number;
  maxDepth: number;
}

export const DEFAULT_RECORDING_LIMITS: RecordingLimits = { maxFileBytes: 1024 * 1024 * 1024, maxLineBytes: 16 * 1024 * 1024, maxDepth: 64 };

/** An exchange read back, numbered in file order (1-based), with the line it came from. */
export interface RecordedExchange extends ExchangeLine {
  number: number;
  line: number;
}

export interface Recording {
  file: string;
  /** The card in force: the last one recorded. */
  card: Record<string, unknown> | undefined;
  exchanges: RecordedExchange[];
}

export class RecordingReadError extends Error {
  override name = 'RecordingReadError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(problems.length === 1 ? problems[0]! : `${file} cannot be replayed, ${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Problems listed at most; the rest are counted. */
const MAX_PROBLEMS = 20;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function headersProblem(headers: unknown): string | undefined {
  if (!isRecord(headers)) return 'reply.headers is not an object';
  for (const [k, v] of Object.entries(headers))
    if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) return `reply.headers.${k} is not a string or a list of strings`;
  return undefined;
}

function eventProblem(event: unknown, i: number): string | undefined {
  const e = event as RecordedEvent;
  if (!isRecord(e) || typeof e.offset_ms !== 'number' || !Number.isFinite(e.offset_ms) || e.offset_ms < 0)
    return `reply.events[${i}].offset_ms is not a number of milliseconds ≥ 0`;
  if (e.data === undefined && typeof e.text !== 'string') return `reply.events[${i}] has neither data nor text`;
  return undefined;
}

/**
 * A recorded path must be what the proxy itself forwards: origin-form, already resolved, no query.
 * Recordings are committed and `replay --diff` runs in CI, so an edited path such as
 * `//other-host/x` must never decide where a request goes.
 */
function recordedPathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string') return 'request.path is not a path';
  const checked = originFormPath(path);
  if (checked.ok && checked.path === path && !/[?#]/.test(path)) return undefined;
  return `request.path is not an origin-form path as the proxy forwards it (${JSON.stringify(path.slice(0, 100))}${checked.ok ? '' : `: ${checked.message}`})`;
}

/** What is wrong with a parsed line, or undefined. */
function lineProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not a recording line (a JSON object with a type)';
  switch (value.type) {
    case 'recording':
      return value.format === RECORDING_FORMAT ? undefined : `format ${JSON.stringify(value.format)} is not ${RECORDING_FORMAT}`;
    case 'card':
      return isRecord(value.card) ? undefined : 'card is not an object';
    case 'exchange': {
      const { request, reply } = value as { request?: Record<string, unknown>; reply?: Record<string, unknown> };
      if (!isRecord(request)) return 'request is not an object';
      if (typeof request.method !== 'string' || request.method === '') return 'request.method is not a JSON-RPC method name';
      const pathProblem = recordedPathProblem(request.path);
      if (pathProblem) return pathProblem;
      if (request.skill !== undefined && (typeof request.skill !== 'string' || !isRecord(request.part) || !isRecord(request.part.data)))
        return 'request.skill needs request.part with its data';
      if (!isRecord(reply)) return 'reply is not an object';
      if (!Number.isInteger(reply.status) || (reply.status as number) < 100 || (reply.status as number) > 599) return 'reply.status is not an HTTP status';
      const headers = headersProblem(reply.headers);
      if (headers) return headers;
      if (reply.text !== undefined && typeof reply.text !== 'string') return 'reply.text is not a string';
      if (reply.base64 !== undefined && typeof reply.base64 !== 'string') return 'reply.base64 is not a string';
      if (reply.events !== undefined) {
        if (!Array.isArray(reply.events)) return 'reply.events is not a list';
        for (const [i, e] of reply.events.entries()) {
          const p = eventProblem(e, i);
          if (p) return p;
        }
      }
      return undefined;
    }
    default:
      return `type ${JSON.stringify(value.type)} is not one of recording, card, exchange`;
  }
}

export async function readRecording(file: string, limits: RecordingLimits = DEFAULT_RECORDING_LIMITS): Promise<Recording> {
  const read = readRegularFile(file, { maxBytes: limits.maxFileBytes, what: 'a recording' });
  if (!read.ok) throw new RecordingReadError(file, [`${file}: ${read.message}`]);
  return parseRecording(file, read.bytes.toString('utf8'), limits);
}

export function parseRecording(file: string, text: string, limits: RecordingLimits = DEFAULT_RECORDING_LIMITS): Recording {
  const problems: string[] = [];
  const recording: Recording = { file, card: undefined, exchanges: [] };
  const lines = text.split('\n');
  // The text after the last newline is a line only if it is not empty: a line cut short.
  const endsWithNewline = text.endsWith('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    const lineNo = i + 1;
    const last = i === lines.length - 1;
    if (raw.trim() === '') continue;
    const where = `${file}:${lineNo}`;
    if (Buffer.byteLength(raw) > limits.maxLineBytes) {
      problems.push(`${where}: the line is longer than ${limits.maxLineBytes} bytes`);
      continue;
    }
    if (!nestingWithin(raw, limits.maxDepth)) {
      problems.push(`${where}: the line nests deeper than ${limits.maxDepth} levels`);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push(
        last && !endsWithNewline
          ? `${where}: the recording ends mid-line (cut short while it was written?); remove the partial last line to replay the rest`
          : `${where}: not valid JSON (${(err as Error).message})`,
      );
      continue;
    }
    const problem = lineProblem(value);
    if (problem) {
      problems.push(`${where}: ${problem}`);
      continue;
    }
    const line = value as CardLine | ExchangeLine | { type: 'recording' };
    if (line.type === 'card') recording.card = line.card;
    else if (line.type === 'exchange') recording.exchanges.push({ ...line, number: recording.exchanges.length + 1, line: lineNo });
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS) shown.push(`… and ${problems.length - MAX_PROBLEMS} more`);
    throw new RecordingReadError(file, shown);
  }
  return recording;
}
