/**
 * What a reply told the buyer, read the way a JSON-RPC client reads it: a result, an error
 * envelope, or something no JSON-RPC client can use (not JSON at all, or JSON that is neither).
 * The journal's `outcome` is built on this; the proxy only calls it off the hot path.
 */
import type { JsonRpcError } from './envelopes.js';

export type ReplyBodyKind = 'result' | 'error' | 'malformed_json' | 'not_jsonrpc';

export interface ReadReply {
  kind: ReplyBodyKind;
  /** The error object, when kind is `error`. */
  error?: JsonRpcError;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A parsed JSON value as a JSON-RPC response: `result` or `error` (with a numeric code), or neither. */
export function readRpcReply(json: unknown): ReadReply {
  if (!isRecord(json)) return { kind: 'not_jsonrpc' };
  const error = json.error;
  if (isRecord(error) && typeof error.code === 'number') return { kind: 'error', error: error as unknown as JsonRpcError };
  if (json.jsonrpc === '2.0' && 'result' in json) return { kind: 'result' };
  return { kind: 'not_jsonrpc' };
}

/** Reply bytes as a JSON-RPC response; bytes that are not JSON are `malformed_json`, an empty body `not_jsonrpc`. */
export function readRpcReplyBytes(bytes: Buffer | string): ReadReply {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  if (text.trim() === '') return { kind: 'not_jsonrpc' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'malformed_json' };
  }
  return readRpcReply(json);
}

/** How deep a lead.submit result is searched for its response part. */
const LEAD_SEARCH_DEPTH = 6;

/**
 * The `status` of the lead.submit response inside a JSON-RPC result (`accepted`, `duplicate` …),
 * wherever the result carries it (a Message's parts, a Task's artifacts); undefined when none.
 */
export function leadSubmitStatus(json: unknown): string | undefined {
  const visit = (node: unknown, depth: number): string | undefined => {
    if (depth > LEAD_SEARCH_DEPTH || node === null || typeof node !== 'object') return undefined;
    if (!Array.isArray(node) && (node as Record<string, unknown>).type === 'lead.submit.response') {
      // The response's fields sit beside `type`, or under its `data` member.
      const part = node as Record<string, unknown>;
      const status = part.status ?? (isRecord(part.data) ? part.data.status : undefined);
      return typeof status === 'string' ? status : undefined;
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      const found = visit(child, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return isRecord(json) ? visit(json.result, 0) : undefined;
}

/**
 * The URI a -32008 (EXTENSION_SUPPORT_REQUIRED) names in its ErrorInfo metadata, or in the
 * AAP payload's details; undefined when the error names none.
 */
export function requiredExtensionUri(error: JsonRpcError): string | undefined {
  const data = error.data;
  const entries: unknown[] = Array.isArray(data) ? data : isRecord(data) ? [data] : [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const metadata = entry.metadata;
    if (isRecord(metadata) && typeof metadata.extensionUri === 'string') return metadata.extensionUri;
    const details = entry.details;
    if (isRecord(details) && typeof details.extension_uri === 'string') return details.extension_uri;
    if (typeof entry.extensionUri === 'string') return entry.extensionUri;
  }
  return undefined;
}

/**
 * Watches an SSE reply for error events: an `event: error` frame, or any event whose data is a
 * JSON-RPC error envelope. Only events that mention "error" are parsed; the last error seen is
 * what the buyer was left with. Bounded: an event larger than `maxEventBytes` is skipped.
 */
export class SseErrorScanner {
  /** The last error event seen so far. */
  lastError: JsonRpcError | undefined;
  private pending = '';
  private skipping = false;

  constructor(private readonly maxEventBytes = 65_536) {}

  push(chunk: Buffer | string): void {
    let text = this.pending + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    let at: number;
    while ((at = text.search(/\r?\n\r?\n/)) !== -1) {
      const event = text.slice(0, at);
      text = text.slice(at).replace(/^\r?\n\r?\n/, '');
      if (this.skipping) this.skipping = false;
      else if (event.includes('error')) this.readEvent(event);
    }
    if (text.length > this.maxEventBytes) {
      // Too large to be an error frame worth parsing: drop it up to its end.
      this.skipping = true;
      text = '';
    }
    this.pending = text;
  }

  private readEvent(event: string): void {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const read = readRpcReplyBytes(data);
    if (read.kind === 'error') this.lastError = read.error;
  }
}
