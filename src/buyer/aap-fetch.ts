/**
 * `aapFetch(fetchImpl?)`: a `fetch` to hand the SDK (`JsonRpcTransportFactory({ fetchImpl })`,
 * `DefaultAgentCardResolver({ fetchImpl })`) that keeps what SDK error conversion throws away:
 * the raw JSON-RPC error envelope (older SDKs keep only the message), the HTTP status and a
 * `Retry-After` header (every version ignores both when the body is JSON-RPC), and the status of
 * a 2xx reply whose body is not JSON. readAapError then finds them from the exception alone.
 *
 * It reads each non-streaming reply once, as the SDK would, and hands the SDK an equivalent
 * Response. Streams (`text/event-stream`) pass untouched: the SDK keeps an SSE error event's
 * code and data on the exception's `cause`. Network failures reject exactly as before.
 */
import { BODY_START_CHARS, keepReply, type CapturedReply } from './captured-replies.js';
import { isObject, retryAfterHeaderMs, type Json } from './reading.js';

/** Bodies larger than this, declared or found while reading, are handed on whole and not kept. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;
/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function errorMemberOf(parsed: unknown): Json | undefined {
  return isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
}

/** A Response like `response` whose body is `chunks` followed by what `reader` has not read yet. */
function resumed(response: Response, chunks: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): Response {
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const next = chunks.shift();
      if (next !== undefined) return controller.enqueue(next);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/**
 * The body's text when it is at most MAX_KEPT_BODY_BYTES, read as it arrives (a chunked body
 * declares no length); else a Response that hands on every byte, read or not, and keeps none.
 */
async function boundedText(response: Response, body: ReadableStream<Uint8Array>): Promise<{ text: string } | { whole: Response }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    if ((size += value.byteLength) > MAX_KEPT_BODY_BYTES) return { whole: resumed(response, chunks, reader) };
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes) };
}

export function aapFetch(fetchImpl?: FetchLike): FetchLike {
  return async (input, init) => {
    const send = fetchImpl ?? globalThis.fetch;
    const response = await send(input, init);
    const type = response.headers.get('content-type') ?? '';
    const length = Number(response.headers.get('content-length') ?? 0);
    if (type.startsWith('text/event-stream') || NULL_BODY.has(response.status) || !(length <= MAX_KEPT_BODY_BYTES) || response.body === null) return response;

    const read = await boundedText(response, response.body);
    if ('whole' in read) return read.whole;
    const { text } = read;
    const reply: CapturedReply = { status: response.status };
    const retryAfterMs = retryAfterHeaderMs(response.headers.get('retry-after'));
    if (retryAfterMs !== undefined) reply.retryAfterMs = retryAfterMs;
    let parsed: unknown;
    let notJson: SyntaxError | undefined;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      notJson = e instanceof SyntaxError ? e : new SyntaxError(String(e));
    }

    const error = errorMemberOf(parsed);
    const keys: object[] = [];
    if (error) {
      reply.error = error;
      if (text.length <= MAX_KEPT_BODY_BYTES / 4) reply.errorText = JSON.stringify({ code: error.code, message: error.message, data: error.data });
      if (typeof error.data === 'object' && error.data !== null) keys.push(error.data);
    } else if (notJson || !response.ok) {
      reply.notJson = notJson !== undefined;
      reply.bodyStart = text.slice(0, BODY_START_CHARS);
    }
    if (notJson) keys.push(notJson);
    // An error member is kept whole: it weighs what its text weighed, against the store's bound.
    if (error || notJson || !response.ok) keepReply(reply, keys, error ? text.length : undefined);

    const copy = new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(copy, 'url', { value: response.url });
    // The SDK reads 2xx bodies with json(): hand it the objects kept above, so `error.data` on
    // its exception is the very object the reply is filed under.
    Object.defineProperty(copy, 'json', {
      value: async () => {
        if (notJson) throw notJson;
        return parsed;
      },
    });
    return copy;
  };
}
