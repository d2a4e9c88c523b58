/**
 * `card: { signature }`: the signature faults of an agent card, applied to the card the proxy
 * is about to serve (after stale, patch, the URL rewrite and its own signing), so a buyer that
 * verifies cards meets a signature that does not verify (`tamper`), none at all (`strip`), one by
 * a key no JWKS holds (`unknown-key`) or one whose header names an algorithm the key does not use
 * (`wrong-alg`). The JWS work is protocol/card-signature.ts's.
 */
import {
  signCard,
  signaturesOf,
  throwawaySigningKey,
  withoutSignatures,
  type CardSignatureAlg,
  type CardSignatureFault,
  type CardSigningKey,
} from '../protocol/card-signature.js';
import { CardCanonicalError } from '../protocol/card-canonical.js';

/** What the fault has to work with: the proxy's key, and the signatures the dealer's card came with. */
export interface SignatureMaterial {
  key: CardSigningKey | undefined;
  /** The signatures of the card as the dealer (or the stale copy) had them, before the proxy changed it. */
  originSignatures: unknown[];
}

/** One throwaway key per algorithm for the life of the process: made once, in no JWKS. */
const throwaway = new Map<CardSignatureAlg, Promise<CardSigningKey>>();

function throwawayLike(key: CardSigningKey | undefined): Promise<CardSigningKey> {
  const alg = key?.alg ?? 'ES256';
  let made = throwaway.get(alg);
  if (!made) throwaway.set(alg, (made = throwawaySigningKey(key)));
  return made;
}

/** Appended to the description after signing: a change every verifier sees. */
const TAMPER_MARK = ' (changed after it was signed)';

/** The card with the fault applied, or undefined (with a note saying why) when it cannot be. */
export async function forgeCardSignature(
  card: Record<string, unknown>,
  fault: CardSignatureFault,
  material: SignatureMaterial,
  notes: string[],
): Promise<Record<string, unknown> | undefined> {
  try {
    return await forge(card, fault, material, notes);
  } catch (e) {
    if (!(e instanceof CardCanonicalError)) throw e;
    notes.push(`card signature ${fault} not applied: ${e.message}`);
    return undefined;
  }
}

async function forge(
  card: Record<string, unknown>,
  fault: CardSignatureFault,
  material: SignatureMaterial,
  notes: string[],
): Promise<Record<string, unknown> | undefined> {
  const { key } = material;
  switch (fault) {
    case 'strip':
      if (signaturesOf(card).length > 0) return withoutSignatures(card);
      notes.push('card signature strip not applied: the card carries no signature to strip');
      return undefined;
    case 'unknown-key':
      return signCard(withoutSignatures(card), await throwawayLike(key));
    case 'wrong-alg':
      if (!key) break;
      // The classic confusion: an HMAC keyed with the public key, under a header that says HS256.
      return signCard(withoutSignatures(card), key, { alg: 'HS256', material: Buffer.from(key.publicKey.export({ type: 'spki', format: 'pem' })) });
    case 'tamper': {
      const signatures = signaturesOf(card).length > 0 ? signaturesOf(card) : material.originSignatures;
      if (signatures.length === 0) break;
      return { ...card, description: `${typeof card.description === 'string' ? card.description : ''}${TAMPER_MARK}`, signatures };
    }
  }
  notes.push(
    `card signature ${fault} not applied: ${fault === 'tamper' ? 'the card carries no signature and the proxy has no key' : 'the proxy has no key'} to sign with (--card-signing-key, or --mock-sign-card for the embedded mock)`,
  );
  return undefined;
}
