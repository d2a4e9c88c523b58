/** Reading one request header the way every rule, key and option means it. */
import type { IncomingHttpHeaders } from 'node:http';

/** The header's value; its first one when the request repeats it. */
export function firstHeaderValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
