// Signed agent cards in tests: key files of each kind a flag takes, a dealer that signs its card
// with @a2a-js/sdk's own generateAgentCardSignature (its skills are the mock dealer's), and the
// SDK's verifier fed from a JWKS URL, recording which key ids it was asked for.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { exportJWK, importJWK, type JWK } from 'jose';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { buildAgentCard, createMockDealer } from '../../src/mock/index.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { tempDir } from './temp-dir.js';

export type KeyKind = 'ES256' | 'EdDSA' | 'RS256';

export function keyPair(kind: KeyKind): { privateKey: KeyObject; publicKey: KeyObject } {
  if (kind === 'EdDSA') return generateKeyPairSync('ed25519');
  if (kind === 'RS256') return generateKeyPairSync('rsa', { modulusLength: 2048 });
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

/** A private key written as PKCS#8 PEM (or as a JWK file); its path and the key. */
export async function keyFile(t: Test, kind: KeyKind, format: 'pem' | 'jwk' = 'pem', jwkExtra: Partial<JWK> = {}) {
  const pair = keyPair(kind);
  const file = path.join(tempDir(t, 'aap-chaos-keys-'), `${kind}.${format === 'pem' ? 'pem' : 'jwk.json'}`);
  const text =
    format === 'pem'
      ? (pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)
      : JSON.stringify({ ...(await exportJWK(pair.privateKey)), ...jwkExtra });
  writeFileSync(file, text, { mode: 0o600 });
  return { file, ...pair };
}

/** The SDK's verifier with the keys of a JWKS URL; `asked` records every kid it looked up. */
export function sdkVerifierFromJwks(jwksUrl: string): { verify: (card: unknown) => Promise<void>; asked: string[] } {
  const asked: string[] = [];
  const verifier = verifyAgentCardSignature(async (kid) => {
    asked.push(kid);
    const { keys } = (await (await fetch(jwksUrl)).json()) as { keys: JWK[] };
    const jwk = keys.find((k) => k.kid === kid);
    if (!jwk) throw new Error(`no key ${kid} in ${jwksUrl}`);
    return (await importJWK(jwk, jwk.alg)) as Exclude<Awaited<ReturnType<typeof importJWK>>, Uint8Array>;
  });
  return { verify: (card) => verifier(card as never), asked };
}

export interface SdkSigningDealer {
  url: string;
  /** The card bytes it serves, exactly. */
  cardBytes(): Buffer;
  kid: string;
  publicKey: KeyObject;
}

/**
 * A dealer whose card the SDK signs (ES256, typ JOSE): the mock dealer's card and skills, with
 * its interface URL on this dealer's own address.
 */
export async function startSdkSigningDealer(t: Test): Promise<SdkSigningDealer> {
  const mock = createMockDealer({ seed: 1 });
  const { privateKey, publicKey } = keyPair('ES256');
  const kid = 'dealer-key-1';
  let bytes = Buffer.alloc(0);
  const server = http.createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return mock.handle(req, res);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  const card = buildAgentCard({
    profile: '1.3',
    extensionUri: AAP_EXTENSION_URI_1_3,
    streaming: false,
    dealer: mock.inventory.dealer,
    host: `127.0.0.1:${port}`,
  });
  const signed = await generateAgentCardSignature(privateKey, { alg: 'ES256', kid, typ: 'JOSE' })(card as never);
  bytes = Buffer.from(JSON.stringify(signed));
  return { url: `http://127.0.0.1:${port}`, cardBytes: () => bytes, kid, publicKey };
}
