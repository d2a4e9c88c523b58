/**
 * Who is calling the mock dealer, for the one thing it scopes by caller: tasks (A2A §3.1.4 and
 * §13.1: a client sees only its own). The mock checks no credentials; it takes the credential a
 * buyer presents (Authorization, else x-api-key) as its identity and keeps only a hash of it, so
 * two buyers with different keys never see each other's tasks. Requests with neither share one
 * anonymous view.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'] as const;

export const ANONYMOUS_CALLER = 'anonymous';

export function callerOf(headers: IncomingHttpHeaders): string {
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text) return `${name}:${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  }
  return ANONYMOUS_CALLER;
}
