/** Small HTTP helpers of the mock dealer: bounded body reading and JSON replies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cardEtag, etagMatches } from '../protocol/agent-card.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';

/** Larger requests are refused rather than buffered; no AAP request comes close. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Past the limit the rest of a body is read and thrown away, up to this many bytes in all, so
 * the 413 reaches a client still sending (a client cut off mid-upload sees a broken pipe, not
 * the answer). A larger body is answered at once and its connection closed.
 */
export const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

export type BodyRead = { ok: true; body: Buffer } | { ok: false; reason: 'too-large'; drained: boolean } | { ok: false; reason: 'aborted' };

export function readBody(req: IncomingMessage, limit: number = MAX_BODY_BYTES): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead): void => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0; // nothing of it is kept
      if (size > MAX_DRAINED_BYTES) {
        // Too much to read through: answered now; the caller closes the connection.
        req.pause();
        settle({ ok: false, reason: 'too-large', drained: false });
      }
    });
    req.on('end', () => settle(size > limit ? { ok: false, reason: 'too-large', drained: true } : { ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = stringifyJsonRpc(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** How long a buyer may reuse the card without asking again; a revalidation is cheap (ETag, 304). */
export const CARD_MAX_AGE_S = 300;

/** The agent card with Cache-Control and an ETag of its bytes; If-None-Match naming it gets 304. */
export function sendCard(req: IncomingMessage, res: ServerResponse, card: unknown): void {
  const bytes = Buffer.from(JSON.stringify(card));
  const etag = cardEtag(bytes);
  const headers = { 'cache-control': `public, max-age=${CARD_MAX_AGE_S}`, etag };
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}
