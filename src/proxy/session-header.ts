/**
 * Which session a request belongs to: the value of the session header, when it is a usable id.
 * A missing header means the default session; an unusable one (too long, spaces, control
 * characters) is noted on the journal line and the request joins the default session — the
 * request itself is never refused for it. (The header's name is checked with the other options,
 * in src/options.ts.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_SESSION, isSessionId } from '../engine/sessions.js';
import { firstHeaderValue } from '../protocol/header-value.js';

export function sessionOf(headers: IncomingHttpHeaders, header: string, notes: string[]): string | undefined {
  const value = firstHeaderValue(headers, header);
  if (value === undefined || value === DEFAULT_SESSION) return undefined;
  if (isSessionId(value)) return value;
  notes.push(`${header} ignored: a session id is 1 to 128 printable characters without spaces`);
  return undefined;
}
