/**
 * Reads a buyer's request body for classification, up to the inspection limit. A larger body is
 * not held: the bytes read so far and the rest of the socket are forwarded as one stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { buildRequestRefused, type JsonRpcErrorResponse } from '../protocol/envelopes.js';
import { BodyTooLargeError, capStreamedBody, declaredBodyTooLarge, sendBodyTooLarge } from './body-limit.js';
import { TIMED_OUT_MESSAGE, wasTimedOut } from '../http/listener-limits.js';

export interface RequestBody {
  /** The whole body when it fit under the limit. */
  buffer?: Buffer;
  /** True when the body was larger than the limit. */
  oversized: boolean;
  /** What to send upstream: the buffer, or a stream of the prefix and the rest. */
  forward: Buffer | Readable | null;
}

function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return len !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/** Heard so that a body's late error is never unhandled; whoever reads the body hears it too. */
function ignoreBodyError(): void {}

export function readRequestBody(req: IncomingMessage, limit: number): Promise<RequestBody> {
  if (!hasBody(req)) return Promise.resolve({ oversized: false, forward: null });
  // Node emits an aborted body's 'error' a tick after it checked that someone listens: a reader
  // that lets go in between (a prefix read cut short by the buyer leaving) left it unheard, and
  // an unheard 'error' ends the process. This listener stays for the body's life.
  req.on('error', ignoreBodyError);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ oversized: true, forward: req });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        const rest = req;
        resolve({
          oversized: true,
          forward: Readable.from(
            (async function* () {
              yield* chunks;
              for await (const c of rest) yield c as Buffer;
            })(),
          ),
        });
      }
    };
    const onEnd = () => {
      cleanup();
      const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve({ buffer, oversized: false, forward: buffer });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** How much of an oversized body is searched for its top-level JSON-RPC id (see docs/scenarios.md). */
export const ID_SCAN_BYTES = 64 * 1024;
/** How long an injected reply waits for those bytes before answering with a null id. */
const ID_SCAN_WAIT_MS = 1_000;

/**
 * Up to `max` bytes from the start of a body that is not needed any more (an injected reply answers
 * it), without waiting long for a slow sender; Node discards whatever is left unread.
 */
export function readPrefix(body: Buffer | Readable | null, max: number, signal: AbortSignal): Promise<Buffer> {
  if (body === null) return Promise.resolve(Buffer.alloc(0));
  if (Buffer.isBuffer(body)) return Promise.resolve(body.subarray(0, max));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      body.off('data', onData);
      body.off('end', done);
      body.off('error', done);
      signal.removeEventListener('abort', done);
      body.pause();
      resolve(Buffer.concat(chunks).subarray(0, max));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) done();
    };
    const timer = setTimeout(done, ID_SCAN_WAIT_MS);
    body.on('data', onData);
    body.once('end', done);
    body.once('error', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A request the proxy answered (or lost) itself while reading its body: never sent to the dealer. */
export interface BodyRefusal {
  /** 413 (over --max-body), 408 (stalled past the timeouts), 400 (a request target that is refused), 0 (the buyer left mid-body). */
  status: 413 | 408 | 400 | 0;
  note: string;
  envelope?: JsonRpcErrorResponse;
}

export interface BodyLimits {
  maxInspectBytes: number;
  maxBodyBytes: number;
}

/** Answers 413 and says so to the request path (module level: no closure per request). */
function refuseTooLarge(res: ServerResponse, err: BodyTooLargeError): RequestBody & { refusal: BodyRefusal } {
  return { oversized: true, forward: null, refusal: { status: 413, note: err.message, envelope: sendBodyTooLarge(res, err) } };
}

/**
 * Reads the body as readRequestBody does, holding it to --max-body too: a body over the limit is
 * answered 413 here. A streamed body is capped, so it fails upstream once past the limit (the
 * caller answers that with sendBodyTooLarge). A body that stalls or is abandoned ends in a refusal.
 */
export async function readBodyWithinLimits(req: IncomingMessage, res: ServerResponse, limits: BodyLimits): Promise<RequestBody & { refusal?: BodyRefusal }> {
  const { maxInspectBytes, maxBodyBytes } = limits;
  const declared = declaredBodyTooLarge(req, maxBodyBytes);
  if (declared) return refuseTooLarge(res, declared);
  let body: RequestBody;
  try {
    body = await readRequestBody(req, Math.min(maxInspectBytes, maxBodyBytes));
  } catch {
    // Node's clientError handler has already answered a stalled body with 408.
    if (wasTimedOut(req.socket))
      return { oversized: false, forward: null, refusal: { status: 408, note: TIMED_OUT_MESSAGE, envelope: buildRequestRefused(TIMED_OUT_MESSAGE) } };
    return { oversized: false, forward: null, refusal: { status: 0, note: 'the buyer closed the connection before its request body arrived' } };
  }
  // A declared length is already within the limit; only a chunked body can grow past it.
  if (!body.oversized || body.forward === null || Buffer.isBuffer(body.forward) || req.headers['content-length'] !== undefined) return body;
  // Past the inspection limit and the body limit at once: nothing to stream.
  if (maxBodyBytes <= maxInspectBytes) return refuseTooLarge(res, new BodyTooLargeError(maxBodyBytes));
  return { oversized: true, forward: capStreamedBody(body.forward, maxBodyBytes) };
}

/** Every chunk of a body, once it has ended. */
export async function collect(body: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c);
  return chunks;
}
