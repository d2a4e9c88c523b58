/**
 * What keeps a web page from driving the admin API. The API runs open on loopback by default, and
 * any page a buyer's developer has open could otherwise reach it:
 * - DNS rebinding: a page on evil.example re-points its name at 127.0.0.1 and its scripts then talk
 *   to the API "same-origin". The browser still sends `Host: evil.example`, so only loopback names
 *   and the configured admin host are accepted.
 * - Cross-site requests: a page can send simple requests (GET, or POST with text/plain or a form
 *   type) without a preflight. A request carrying a foreign `Origin` (or a `Sec-Fetch-Site` other
 *   than same-origin or none) is refused on every method and on the /events WebSocket upgrade, and
 *   a state-changing request must say `application/json` or `application/yaml`, which a page can
 *   only send after a CORS preflight the API never grants.
 * A page served by the admin listener itself (same origin) passes all three.
 */
import type { IncomingMessage } from 'node:http';
import { hostName, isLoopbackName } from '../http/host-names.js';

/** Methods that change something; they need a content type no page can send cross-site. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Content types accepted on state-changing requests (parameters such as charset are ignored). */
export const ADMIN_CONTENT_TYPES = ['application/json', 'application/yaml'] as const;

export interface AdminGuardOptions {
  /** The address the admin listener is bound to (--admin-host). */
  host: string;
}

export interface Refusal {
  status: number;
  message: string;
}

/** Bound to every interface: the machine's own names cannot be known, and a token is required there anyway. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function hostAllowed(hostHeader: string | undefined, opts: AdminGuardOptions): boolean {
  if (!hostHeader) return false;
  const name = hostName(hostHeader);
  if (isLoopbackName(name)) return true;
  if (isWildcard(opts.host)) return true;
  return name === hostName(opts.host);
}

/** Why the admin API refuses this request or upgrade, or undefined when it may go on. */
export function adminRequestRefusal(req: IncomingMessage, opts: AdminGuardOptions, upgrade = false): Refusal | undefined {
  const host = req.headers.host;
  if (!hostAllowed(host, opts))
    return {
      status: 421,
      message: `Host "${host ?? ''}" is not this admin API: use a loopback name (127.0.0.1, localhost, [::1])${isWildcard(opts.host) ? '' : ` or ${opts.host}`}`,
    };
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host!))
    return { status: 403, message: `cross-origin request refused: Origin "${origin}" is not this admin API (http://${host})` };
  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none')
    return { status: 403, message: `cross-site request refused (Sec-Fetch-Site: ${fetchSite})` };
  if (!upgrade && STATE_CHANGING.has(req.method ?? '')) {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(ADMIN_CONTENT_TYPES as readonly string[]).includes(type))
      return {
        status: 415,
        message: `${req.method} needs "content-type: application/json" or "content-type: application/yaml" (got ${type ? `"${type}"` : 'none'}); other types could be sent by any web page`,
      };
  }
  return undefined;
}

/** An Origin matches when it is http(s)://<the Host the request was sent to>. */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === new URL(`http://${host}`).host;
  } catch {
    return false; // "null", and anything else that is not an origin
  }
}
