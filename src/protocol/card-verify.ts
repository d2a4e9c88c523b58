/**
 * Verifying a card's signatures as an A2A v1.0 client does (@a2a-js/sdk's
 * `verifyAgentCardSignature`): each entry's protected header must name `alg`, `kid` and `typ`;
 * the key is found by `kid`; one entry that verifies over the canonical card is enough. Unlike the
 * SDK's verifier, this one says what it found of every entry, and holds each key to its own
 * algorithm (an `alg` the key's type does not sign with is refused, whatever the header says).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { FlattenedJWS, JWSHeaderParameters, ProtectedHeaderParameters } from 'jose';
import { canonicalCardPayload, CardCanonicalError } from './card-canonical.js';
import { CardKeyError, loadJose, signatureAlgFor, signaturesOf } from './card-signature.js';

/** A public key a verifier trusts, with the `kid` it was given under (none for a bare PEM key). */
export interface VerificationKey {
  kid?: string;
  key: KeyObject;
}

/** What was found of one signature entry. */
export interface SignatureFinding {
  kid?: string;
  alg?: string;
  /** True: verified; false: it does not; undefined: not checked (no key was given). */
  valid?: boolean;
  problem?: string;
}

/**
 * `none`: the card carries no signature; `valid`: one verifies; `invalid`: none does (or one is
 * malformed and no key was given); `unverified`: signed, and no key was given to check with.
 */
export interface CardSignatureReport {
  state: 'none' | 'valid' | 'invalid' | 'unverified';
  signatures: SignatureFinding[];
}

/** The card's signatures checked against `keys`; without keys only their form is read. */
export async function verifyCardSignatures(card: unknown, keys?: readonly VerificationKey[]): Promise<CardSignatureReport> {
  const entries = signaturesOf(card);
  if (entries.length === 0) return { state: 'none', signatures: [] };
  const jose = await loadJose();
  let payload: string | undefined;
  let unreadable: string | undefined;
  try {
    payload = jose.base64url.encode(canonicalCardPayload(card));
  } catch (e) {
    if (!(e instanceof CardCanonicalError)) throw e;
    unreadable = `the card cannot be canonicalized (${e.message})`;
  }
  const signatures: SignatureFinding[] = [];
  for (const entry of entries) signatures.push(await checkEntry(entry, payload, unreadable, keys));
  const state = signatures.some((s) => s.valid === true)
    ? 'valid'
    : signatures.every((s) => s.valid === undefined && s.problem === undefined)
      ? 'unverified'
      : 'invalid';
  return { state, signatures };
}

async function checkEntry(
  entry: unknown,
  payload: string | undefined,
  unreadable: string | undefined,
  keys?: readonly VerificationKey[],
): Promise<SignatureFinding> {
  const { protected: protectedHeader, signature, header } = (entry ?? {}) as { protected?: unknown; signature?: unknown; header?: unknown };
  const jose = await loadJose();
  let decoded: ProtectedHeaderParameters;
  try {
    decoded = jose.decodeProtectedHeader({ protected: String(protectedHeader ?? ''), signature: String(signature ?? '') } as FlattenedJWS);
  } catch {
    return { valid: false, problem: 'the protected header cannot be decoded' };
  }
  const found: SignatureFinding = { kid: decoded.kid, alg: decoded.alg };
  if (!decoded.kid || !decoded.alg || !decoded.typ) return { ...found, valid: false, problem: 'the protected header lacks kid, alg or typ' };
  if (unreadable) return { ...found, valid: false, problem: unreadable };
  if (keys === undefined) return found;
  const candidates = keysFor(keys, decoded.kid);
  if (candidates.length === 0) return { ...found, valid: false, problem: `no trusted key has kid ${decoded.kid}` };
  let problem = 'the signature does not verify';
  for (const { key } of candidates) {
    const expected = algOf(key);
    if (decoded.alg !== expected) {
      problem = `alg ${decoded.alg} does not match the key (${expected})`;
      continue;
    }
    const jws = { payload: payload!, protected: String(protectedHeader), signature: String(signature), header: header as JWSHeaderParameters | undefined };
    try {
      await jose.flattenedVerify(jws, key, { algorithms: [expected] });
      return { ...found, valid: true };
    } catch {
      /* the next key may hold */
    }
  }
  return { ...found, valid: false, problem };
}

/** The algorithm a trusted key verifies with; a key of a type no card signature uses verifies nothing. */
function algOf(key: KeyObject): string {
  try {
    return signatureAlgFor(key);
  } catch (e) {
    if (e instanceof CardKeyError) return `none (the key ${e.message.replace(/^holds /, 'is ')})`;
    throw e;
  }
}

/** The keys given under this kid, else those given without one (a bare PEM key matches any kid). */
function keysFor(keys: readonly VerificationKey[], kid: string): VerificationKey[] {
  const named = keys.filter((k) => k.kid === kid);
  return named.length > 0 ? named : keys.filter((k) => k.kid === undefined);
}

/** The public keys in a PEM (public or private key, certificate), a JWK or a JWK set. */
export function verificationKeysFromText(text: string): VerificationKey[] {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    if (!trimmed.includes('-----BEGIN ')) throw new CardKeyError('holds neither a PEM key nor a JWK or JWK set');
    return [{ key: publicKeyOf(() => createPublicKey(trimmed)) }];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new CardKeyError('is not valid JSON (a JWK or a JWK set)');
  }
  const list = (parsed as { keys?: unknown } | null)?.keys;
  const jwks = Array.isArray(list) ? list : [parsed];
  const keys = jwks.filter((k) => (k as { kty?: unknown } | null)?.kty !== 'oct').map(verificationKeyOfJwk);
  if (keys.length === 0) throw new CardKeyError('holds no public key');
  return keys;
}

function verificationKeyOfJwk(jwk: unknown): VerificationKey {
  if (jwk === null || typeof jwk !== 'object') throw new CardKeyError('holds a JWK set entry that is not an object');
  const { d: _private, ...publicPart } = jwk as Record<string, unknown>;
  const key = publicKeyOf(() => createPublicKey({ key: publicPart as never, format: 'jwk' }));
  const kid = (jwk as { kid?: unknown }).kid;
  return typeof kid === 'string' ? { kid, key } : { key };
}

function publicKeyOf(read: () => KeyObject): KeyObject {
  try {
    return read();
  } catch (e) {
    throw new CardKeyError(`holds a key that cannot be read (${(e as Error).message})`);
  }
}
