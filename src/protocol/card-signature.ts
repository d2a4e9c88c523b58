/**
 * A2A v1.0 agent-card signatures: a JWS (flattened JSON serialization, detached payload) over
 * the canonical card (card-canonical.ts), kept in the card's `signatures[]` as `{protected,
 * signature}`, with `alg`, `kid` and `typ: JOSE` in the protected header, as @a2a-js/sdk's
 * `generateAgentCardSignature` writes them and `verifyAgentCardSignature` reads them. The JWS
 * work is jose's; this file knows which keys sign (ES256 on P-256, EdDSA on Ed25519, RS256 on
 * RSA of 2048 bits or more), what a key id is (the JWK's `kid`, else its RFC 7638 thumbprint),
 * and whether a signature still holds for a card the proxy changed.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { canonicalCardPayload, CardCanonicalError } from './card-canonical.js';

let jose: Promise<typeof import('jose')> | undefined;
/** jose, loaded on first use: a run that never signs or verifies a card does not pay for it. */
export const loadJose = (): Promise<typeof import('jose')> => (jose ??= import('jose'));

/** Where the proxy (and a signing mock dealer) serves the public half of its card key. */
export const CARD_JWKS_PATH = '/.well-known/aap-chaos/jwks.json';
/** The JOSE `typ` A2A v1.0 card signatures carry. */
export const CARD_SIGNATURE_TYP = 'JOSE';

export type CardSignatureAlg = 'ES256' | 'EdDSA' | 'RS256';

/** A key that cannot sign or verify cards: the message says why, without naming the file (the caller does). */
export class CardKeyError extends Error {
  override name = 'CardKeyError';
}

/** A private key that signs cards, with everything a signature and a JWKS need of it. */
export interface CardSigningKey {
  readonly alg: CardSignatureAlg;
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The public JWK as the JWKS serves it: `kid`, `alg` and `use: sig` added. */
  readonly publicJwk: JWK;
}

/** One signature entry of a card. */
export interface CardSignatureEntry {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** The algorithm a key signs cards with, by its type; refuses any other key. */
export function signatureAlgFor(key: KeyObject): CardSignatureAlg {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    throw new CardKeyError(`holds an EC key on the unsupported curve ${curve ?? 'unknown'}: card signatures use ES256 on P-256`);
  }
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits >= 2048) return 'RS256';
    throw new CardKeyError(`holds an RSA key of ${bits} bits: RS256 needs 2048 bits or more`);
  }
  throw new CardKeyError(`holds a key of the unsupported type ${type ?? 'unknown'}: give an EC P-256 (ES256), Ed25519 (EdDSA) or RSA (RS256) key`);
}

/** The private key in a PKCS#8 PEM or a JWK text, with the JWK's own `kid` when it has one. */
export function privateKeyFromText(text: string): { key: KeyObject; kid?: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const jwk = jwkFromText(trimmed);
    if ('keys' in jwk) throw new CardKeyError('holds a JWK set: give one private key');
    if (jwk.kty === 'oct') throw new CardKeyError('holds a symmetric (oct) key: give an EC P-256, Ed25519 or RSA private key');
    if (jwk.d === undefined) throw new CardKeyError('holds a public JWK: signing needs the private key (with "d")');
    return { key: importKey(() => createPrivateKey({ key: jwk as never, format: 'jwk' })), kid: typeof jwk.kid === 'string' ? jwk.kid : undefined };
  }
  if (/-----BEGIN (PUBLIC KEY|CERTIFICATE|RSA PUBLIC KEY)-----/.test(trimmed)) throw new CardKeyError('holds a public key: signing needs the private key');
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(trimmed))
    throw new CardKeyError('holds an encrypted key: give it unencrypted (openssl pkcs8 -topk8 -nocrypt)');
  const sec1 = /-----BEGIN (EC|RSA) PRIVATE KEY-----/.exec(trimmed);
  if (sec1) throw new CardKeyError(`holds a ${sec1[1]} PRIVATE KEY, not PKCS#8: convert it with openssl pkcs8 -topk8 -nocrypt`);
  if (!trimmed.includes('-----BEGIN PRIVATE KEY-----'))
    throw new CardKeyError('holds neither a PKCS#8 PEM private key ("-----BEGIN PRIVATE KEY-----") nor a JWK');
  return { key: importKey(() => createPrivateKey(trimmed)) };
}

function jwkFromText(text: string): JWK & { keys?: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CardKeyError('is not valid JSON (a JWK file holds one JSON object)');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CardKeyError('holds no JWK object');
  return parsed as JWK & { keys?: unknown };
}

function importKey(read: () => KeyObject): KeyObject {
  try {
    return read();
  } catch (e) {
    throw new CardKeyError(`holds a key that cannot be read (${(e as Error).message})`);
  }
}

/** A signing key from a private key: its algorithm, key id and public JWK. */
export async function cardSigningKey(privateKey: KeyObject, kid?: string): Promise<CardSigningKey> {
  if (privateKey.type !== 'private') throw new CardKeyError('holds a public key: signing needs the private key');
  const alg = signatureAlgFor(privateKey);
  const publicKey = createPublicKey(privateKey);
  const { exportJWK, calculateJwkThumbprint } = await loadJose();
  const jwk = await exportJWK(publicKey);
  const id = kid ?? (await calculateJwkThumbprint(jwk, 'sha256'));
  return { alg, kid: id, privateKey, publicKey, publicJwk: { ...jwk, kid: id, alg, use: 'sig' } };
}

/** A fresh key of the same type as `like` (an EC P-256 one when none is given), absent from every JWKS. */
export async function throwawaySigningKey(like?: CardSigningKey): Promise<CardSigningKey> {
  const alg = like?.alg ?? 'ES256';
  const { privateKey } =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return cardSigningKey(privateKey);
}

/** The JWKS that names these keys' public halves. */
export function jwksOf(keys: readonly CardSigningKey[]): { keys: JWK[] } {
  return { keys: keys.map((k) => k.publicJwk) };
}

/**
 * The card with one more signature: `key` signs the canonical card under a protected header of
 * `alg`, `kid` and `typ: JOSE`. `as` signs under another header with other key material, which
 * is how a signature fault forges one (an HMAC keyed with the public key, under `alg: HS256`).
 */
export async function signCard(
  card: Record<string, unknown>,
  key: CardSigningKey,
  as?: { alg: string; material: KeyObject | Uint8Array },
): Promise<Record<string, unknown>> {
  const payload = new TextEncoder().encode(canonicalCardPayload(card));
  const { FlattenedSign } = await loadJose();
  const jws = await new FlattenedSign(payload)
    .setProtectedHeader({ alg: as?.alg ?? key.alg, kid: key.kid, typ: CARD_SIGNATURE_TYP })
    .sign(as?.material ?? key.privateKey);
  const entry: CardSignatureEntry = { protected: jws.protected!, signature: jws.signature };
  return { ...card, signatures: [...signaturesOf(card), entry] };
}

/** The card's signature entries (none when `signatures` is absent or not a list). */
export function signaturesOf(card: unknown): unknown[] {
  const list = (card as { signatures?: unknown } | null)?.signatures;
  return Array.isArray(list) ? list : [];
}

/** The card without `signatures`. */
export function withoutSignatures(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _gone, ...rest } = card;
  return rest;
}

/** Whether every signature of `before` covers `after` too: both canonical cards are the same text. */
export function sameSignedContent(before: unknown, after: unknown): boolean {
  try {
    return canonicalCardPayload(before) === canonicalCardPayload(after);
  } catch (e) {
    if (e instanceof CardCanonicalError) return false;
    throw e;
  }
}

/**
 * What became of a card's signatures on the way to the buyer: `kept` (the dealer's still cover
 * the card served), `removed` (the proxy's changes broke them and there is no key to sign
 * again), `signed` (the proxy's key signed the card served).
 */
export type CardSignatureOutcome = 'kept' | 'removed' | 'signed';

/** The signature faults of `card: { signature }`: each serves a card whose signature a verifier must refuse. */
export const CARD_SIGNATURE_FAULTS = ['tamper', 'strip', 'unknown-key', 'wrong-alg'] as const;
export type CardSignatureFault = (typeof CARD_SIGNATURE_FAULTS)[number];

/** What the journal says of a served card's signatures: an outcome, or the fault that acted. */
export type CardSignatureState = CardSignatureOutcome | CardSignatureFault;

/** True for a card served under a signature fault: one that no verifier may accept. */
export function isForgedSignatureState(state: unknown): state is CardSignatureFault {
  return (CARD_SIGNATURE_FAULTS as readonly unknown[]).includes(state);
}

/**
 * The card as served: signatures that the proxy's changes broke are removed, and with a key the
 * card is signed again. `origin` is the card the signatures came with, before the proxy changed it.
 */
export async function settleCardSignatures(
  origin: unknown,
  served: Record<string, unknown>,
  key: CardSigningKey | undefined,
  notes: string[],
): Promise<{ card: Record<string, unknown>; outcome?: CardSignatureOutcome }> {
  const signed = signaturesOf(served).length > 0;
  const intact = signed && sameSignedContent(origin, served);
  const unbroken = signed && !intact ? withoutSignatures(served) : served;
  if (key) {
    try {
      return { card: await signCard(unbroken, key), outcome: 'signed' };
    } catch (e) {
      if (!(e instanceof CardCanonicalError)) throw e;
      notes.push(`card not signed: ${e.message}`);
    }
  }
  if (!signed) return { card: served };
  return { card: unbroken, outcome: intact ? 'kept' : 'removed' };
}
