/**
 * Which headers cross the proxy: end-to-end ones do, hop-by-hop ones (and those a message's
 * Connection header names) belong to one connection and never do.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Hop-by-hop headers (RFC 9110 §7.6.1) never cross the proxy; undici also refuses most of them. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'http2-settings',
]);

export function connectionListed(value: string | string[] | undefined): Set<string> | undefined {
  // The usual values name only hop-by-hop headers that are dropped anyway.
  if (!value || value === 'keep-alive' || value === 'close') return undefined;
  const names = (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return names.length ? new Set(names) : undefined;
}

/** Copies end-to-end headers only: drops hop-by-hop ones and those named in `Connection`. */
export function endToEndHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const listed = connectionListed(headers['connection']);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  return out;
}
