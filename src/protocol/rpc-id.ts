/**
 * JSON-RPC ids, echoed exactly as the buyer wrote them. A number such as 12345678901234567890
 * (beyond 2^53) or 1.5e3 does not survive JSON.parse and JSON.stringify, so such an id keeps its
 * own bytes from the request and is written back from them. Also: finding the id at the top level
 * of a body cheaply, without parsing it (for requests too large to inspect).
 */

/** A numeric id whose JavaScript number would not write back the buyer's bytes. */
export class ExactNumberId {
  constructor(readonly text: string) {}

  /** What plain JSON.stringify writes (journals, logs): the nearest number. */
  toJSON(): number {
    return Number(this.text);
  }
}

export type JsonRpcId = string | number | null | ExactNumberId;

/** The id as JSON text, with an exact number's own bytes. */
export function rpcIdJson(id: JsonRpcId): string {
  return id instanceof ExactNumberId ? id.text : JSON.stringify(id);
}

/**
 * JSON.stringify for a JSON-RPC message whose top-level `id` may be an ExactNumberId; key order
 * is kept. Messages with ordinary ids cost one JSON.stringify, as before.
 */
export function stringifyJsonRpc(message: unknown): string {
  const id = (message as { id?: unknown } | null)?.id;
  if (!(id instanceof ExactNumberId)) return JSON.stringify(message);
  const members = Object.entries(message as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${k === 'id' ? id.text : JSON.stringify(v)}`);
  return `{${members.join(',')}}`;
}

/** The id of a parsed request: strings and numbers as they are, an unfaithful number with its own bytes. */
export function exactRpcId(parsedId: unknown, body: Buffer): JsonRpcId {
  if (typeof parsedId === 'string') return parsedId;
  if (typeof parsedId !== 'number') return null;
  const plain = String(parsedId);
  // Clients put the id first or last; one comparison each proves it was written plainly.
  if (endsWithId(body, plain) || startsWithId(body, plain)) return parsedId;
  const text = topLevelIdText(body);
  return text === undefined || text === plain ? parsedId : new ExactNumberId(text);
}

/** A parsed reply (the dealer's) whose numeric id is given back its own bytes from `raw`, before it is re-serialized. */
export function withExactId(reply: unknown, raw: Buffer): unknown {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return reply;
  const id = (reply as { id?: unknown }).id;
  if (typeof id !== 'number') return reply;
  const exact = exactRpcId(id, raw);
  // A patch may have replaced the id: only the same number gets the original bytes back.
  return exact instanceof ExactNumberId && Number(exact.text) === id ? { ...reply, id: exact } : reply;
}

/** An id read from raw text (a top-level scan): a string, a number (exact when needed), or null. */
export function rpcIdFromText(text: string | undefined): JsonRpcId {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value) === text ? value : new ExactNumberId(text);
  } catch {
    /* not a JSON value on its own */
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && isSpace(buf[i])) i++;
  return i;
}

/** Whether the bytes of `body` from `at` are the ASCII text `text` (compared in place, nothing copied). */
function bytesAre(body: Buffer, at: number, text: string): boolean {
  if (at < 0 || at + text.length > body.length) return false;
  for (let i = 0; i < text.length; i++) if (body[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

const ID_KEY = '"id":';
const JSONRPC_FIRST = '{"jsonrpc":"2.0",';

function endsWithId(body: Buffer, plain: string): boolean {
  let end = body.length;
  while (end > 0 && isSpace(body[end - 1])) end--;
  if (body[end - 1] !== CLOSE_BRACE) return false;
  const at = end - 1 - plain.length - ID_KEY.length;
  return at > 0 && (body[at - 1] === COMMA || body[at - 1] === OPEN_BRACE) && bytesAre(body, at, ID_KEY) && bytesAre(body, at + ID_KEY.length, plain);
}

function startsWithId(body: Buffer, plain: string): boolean {
  // `{"id":N,` or `{"jsonrpc":"2.0","id":N,`, and more bytes after the comma.
  const at = body[0] === OPEN_BRACE && bytesAre(body, 1, ID_KEY) ? 1 : bytesAre(body, 0, JSONRPC_FIRST) ? JSONRPC_FIRST.length : -1;
  if (at < 0 || !bytesAre(body, at, ID_KEY) || !bytesAre(body, at + ID_KEY.length, plain)) return false;
  const comma = at + ID_KEY.length + plain.length;
  return body[comma] === COMMA && body.length > comma + 1;
}

/** The index just past a string that opens at `i`, or -1 when it does not close before `end`. */
function skipString(buf: Buffer, i: number, end: number): number {
  let j = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, j);
    if (q === -1 || q >= end) return -1;
    let slashes = 0;
    for (let k = q - 1; k > i && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The index just past the JSON value that starts at `i`, or -1 when it does not end before `end`. */
function skipValue(buf: Buffer, i: number, end: number): number {
  const first = buf[i];
  if (first === QUOTE) return skipString(buf, i, end);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const b = buf[j];
      if (b === QUOTE) {
        j = skipString(buf, j, end);
        if (j === -1) return -1;
        j--;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < end && buf[j] !== COMMA && buf[j] !== CLOSE_BRACE && buf[j] !== CLOSE_BRACKET && !isSpace(buf[j])) j++;
  return j < end ? j : -1;
}

/**
 * The raw text of the top-level `"id"` member of a JSON object, found by skipping over every other
 * member without parsing it; undefined when there is none in the bytes given (which may be only
 * the start of a larger body) or the text is not an object. The last `id` seen wins, as in JSON.parse.
 */
export function topLevelIdText(buf: Buffer, end: number = buf.length): string | undefined {
  let i = skipSpace(buf, 0, end);
  if (buf[i] !== OPEN_BRACE) return undefined;
  i++;
  let found: string | undefined;
  for (;;) {
    i = skipSpace(buf, i, end);
    if (i >= end || buf[i] === CLOSE_BRACE) return found;
    if (buf[i] === COMMA) {
      i++;
      continue;
    }
    if (buf[i] !== QUOTE) return found;
    const keyEnd = skipString(buf, i, end);
    if (keyEnd === -1) return found;
    const key = buf.toString('utf8', i, keyEnd);
    i = skipSpace(buf, keyEnd, end);
    if (buf[i] !== COLON) return found;
    i = skipSpace(buf, i + 1, end);
    const valueEnd = skipValue(buf, i, end);
    if (valueEnd === -1) return found;
    if (key === '"id"' || (key.includes('\\') && safeParse(key) === 'id')) found = buf.toString('utf8', i, valueEnd);
    i = valueEnd;
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
