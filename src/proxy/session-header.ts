/**
 * Which session a request belongs to: the value of the session header, when it is a usable id.
 * A missing header means the default session; an unusable one (too long, spaces, control
 * characters) is noted on the journal line and the request joins the default session — the
 * request itself is never refused for it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_SESSION, isSessionId } from '../engine/sessions.js';

const HEADER_NAME = /^[!#$%&'*+.^_\`|~0-9A-Za-z-]{1,64}$/;

/** Throws a message naming the flag when `name` cannot be an HTTP header name. */
export function assertSessionHeaderName(name: string): void {
  if (!HEADER_NAME.test(name)) throw new Error(`--session-header: "${name}" is not an HTTP header name (letters, digits and -, at most 64 characters)`);
}

export function sessionOf(headers: IncomingHttpHeaders, header: string, notes: string[]): string | undefined {
  const raw = headers[header];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === DEFAULT_SESSION) return undefined;
  if (isSessionId(value)) return value;
  notes.push(`${header} ignored: a session id is 1 to 128 printable characters without spaces`);
  return undefined;
}
