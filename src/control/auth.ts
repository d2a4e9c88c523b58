/**
 * The admin token rule: on loopback the API may run open; anywhere else it needs a token, and
 * every call must present it as `Authorization: Bearer <token>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../http/host-names.js';

export const ADMIN_TOKEN_ENV = 'AAP_CHAOS_ADMIN_TOKEN';

export { isLoopbackHost } from '../http/host-names.js';

/** Throws when the admin API would be reachable from other machines without a token. */
export function assertAdminExposureAllowed(host: string, token: string | undefined): void {
  if (token || isLoopbackHost(host)) return;
  throw new Error(
    `refusing to start the admin API on ${host} without a token: anyone who can reach that address could change faults. ` +
      `Pass --admin-token (or set ${ADMIN_TOKEN_ENV}), or keep --admin-host on 127.0.0.1.`,
  );
}

/**
 * Checks an Authorization header against the token. Both sides are hashed first so the comparison
 * is constant-time and of equal length whatever was sent.
 */
export function bearerTokenMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  if (!match) return false;
  const sent = createHash('sha256').update(match[1]!).digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(sent, expected);
}

/** A browser cannot set headers on a WebSocket; it offers the token as a subprotocol instead. */
export const EVENTS_PROTOCOL = 'aap-chaos.events';
const TOKEN_PROTOCOL_PREFIX = 'aap-chaos.token.';

/**
 * The Authorization header an /events upgrade stands for: its own, or `Bearer <token>` built
 * from a `aap-chaos.token.<base64url token>` subprotocol offered after `aap-chaos.events` (which
 * the server then selects, so the token is never echoed back).
 */
export function eventsAuthorization(authorization: string | undefined, protocols: string | undefined): string | undefined {
  if (authorization) return authorization;
  const offered = (protocols ?? '').split(',').map((p) => p.trim());
  const tokenProtocol = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (!tokenProtocol) return undefined;
  return `Bearer ${Buffer.from(tokenProtocol.slice(TOKEN_PROTOCOL_PREFIX.length), 'base64url').toString('utf8')}`;
}
