/**
 * Host names as listeners see them: the name part of a `Host` header, and which names only this
 * machine can reach. Shared by the proxy's Host check, the admin API's and `check --card-key`.
 */
import { isIP } from 'node:net';

/** The host name part of a Host header or an origin's host (`[::1]:8081` → `::1`), lower case. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (h.startsWith('::ffff:')) return isLoopbackHost(h.slice('::ffff:'.length));
  return isIP(h) === 4 && h.startsWith('127.');
}

/** A name a browser resolves to this machine whatever DNS says: a loopback address, localhost, *.localhost. */
export function isLoopbackName(name: string): boolean {
  return isLoopbackHost(name) || name.endsWith('.localhost');
}
