/**
 * `--max-body`: the largest request body the proxy accepts, whether it declares its length or is
 * sent in chunks. A body declared larger is refused before a byte of it is read; a chunked body is
 * refused the moment it grows past the limit, whether the proxy was still buffering it or already
 * streaming it to the dealer (that upstream request is then cancelled, so the dealer never sees a
 * complete body). The refusal is 413 with a JSON-RPC error, and the connection closes, because the
 * unread rest of the body cannot be skipped cheaply.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { buildRequestRefused } from '../protocol/envelopes.js';
import type { JsonRpcErrorResponse } from '../protocol/envelopes.js';
import { SOURCE_HEADER } from './marker-headers.js';

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The body is larger than --max-body; `message` says by how much, as far as is known. */
export class BodyTooLargeError extends Error {
  readonly code = 'AAP_CHAOS_BODY_TOO_LARGE';
  constructor(maxBytes: number, declaredBytes?: number) {
    super(
      declaredBytes !== undefined
        ? `the body is ${declaredBytes} bytes, more than --max-body (${maxBytes} bytes)`
        : `the body grew to more than --max-body (${maxBytes} bytes)`,
    );
  }
}

/** The refusal for a body whose Content-Length is over the limit, or undefined. */
export function declaredBodyTooLarge(req: IncomingMessage, maxBytes: number): BodyTooLargeError | undefined {
  const declared = Number(req.headers['content-length']);
  return declared > maxBytes ? new BodyTooLargeError(maxBytes, declared) : undefined;
}

/** Passes a streamed body on unchanged, and fails it with BodyTooLargeError once past the limit. */
export function capStreamedBody(body: Readable, maxBytes: number): Readable {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new BodyTooLargeError(maxBytes));
      else done(null, chunk);
    },
  });
  body.on('error', (err) => capped.destroy(err));
  // Whoever reads the body (the dealer's request) listens for its errors while it reads. An
  // exchange answered without it (a reset, a refusal) leaves the body arriving with no reader:
  // its error is then nobody's to report, and unheard it would end the process.
  capped.on('error', () => {});
  return body.pipe(capped);
}

/** Whether an upstream failure was the body outgrowing the limit (the error or its cause). */
export function bodyTooLargeIn(err: unknown): BodyTooLargeError | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BodyTooLargeError) return e;
  }
  return undefined;
}

/** Sends the 413 refusal (connection: close) and returns the envelope the buyer got. */
export function sendBodyTooLarge(res: ServerResponse, err: BodyTooLargeError): JsonRpcErrorResponse {
  return sendRequestRefused(res, 413, err.message);
}

/** Refuses a request with a JSON-RPC error saying why (connection: close) and returns the envelope the buyer got. */
export function sendRequestRefused(res: ServerResponse, status: number, reason: string): JsonRpcErrorResponse {
  const envelope = buildRequestRefused(reason);
  const bytes = Buffer.from(JSON.stringify(envelope));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length, connection: 'close', [SOURCE_HEADER]: 'proxy' });
  res.end(bytes);
  return envelope;
}
