/**
 * `--max-body`: the largest request body the proxy accepts. A body declared larger is refused with
 * 413 and a JSON-RPC error before a byte of it is read or forwarded, and the connection closes (the
 * unread body cannot be skipped cheaply).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildRequestRefused } from '../protocol/envelopes.js';
import { SOURCE_HEADER } from './marker-headers.js';

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Answers 413 and returns true when the declared body is over the limit. */
export function refuseOversizedBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  if (!(declared > maxBytes)) return false;
  const bytes = Buffer.from(JSON.stringify(buildRequestRefused(`the body is ${declared} bytes, more than --max-body (${maxBytes} bytes)`)));
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': bytes.length, connection: 'close', [SOURCE_HEADER]: 'proxy' });
  res.end(bytes);
  return true;
}
