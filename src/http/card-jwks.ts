/**
 * `GET /.well-known/aap-chaos/jwks.json`: the public half of the key that signs the agent cards a
 * listener serves (the proxy with --card-signing-key, a mock dealer with --sign-card), so a
 * staging buyer can add it to its trust store. A listener without a signing key leaves the path
 * alone (the proxy forwards it to the dealer, whose own JWKS it may be).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CARD_JWKS_PATH, jwksOf, type CardSigningKey } from '../protocol/card-signature.js';

/** True when the request was for the JWKS and has been answered. */
export function answeredCardJwks(req: IncomingMessage, res: ServerResponse, key: CardSigningKey | undefined): boolean {
  if (!key || (req.url ?? '/').split('?')[0] !== CARD_JWKS_PATH) return false;
  req.resume();
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 });
    res.end();
    return true;
  }
  const body = Buffer.from(JSON.stringify(jwksOf([key])));
  // Short-lived in caches: a key file changed at the next start must reach buyers soon.
  res.writeHead(200, { 'content-type': 'application/jwk-set+json', 'content-length': body.length, 'cache-control': 'max-age=60' });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
