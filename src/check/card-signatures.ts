/**
 * `check --card-key FILE|URL`: the dealer card's A2A v1.0 signatures, verified against the keys
 * given (a PEM key, a JWK or a JWK set in a file, or a JWKS URL), else only read ("signed, not
 * verified"). A JWKS URL is fetched only from loopback or the target's own origin (a dealer's card
 * must not turn check into a fetcher of other hosts), without redirects, within 5 s and 64 KiB.
 */
import { KeyFileError, loadVerificationKeys, MAX_KEY_FILE_BYTES } from '../common/card-key-file.js';
import { isLoopbackHost } from '../http/host-names.js';
import { CardKeyError } from '../protocol/card-signature.js';
import { verificationKeysFromText, verifyCardSignatures, type CardSignatureReport, type VerificationKey } from '../protocol/card-verify.js';
import type { Finding } from '../protocol/conformance/index.js';

const FLAG = '--card-key';
const FETCH_MS = 5_000;

/** What `check` says of the card's signatures, and against which keys. */
export interface CardSignatureResult extends CardSignatureReport {
  /** The file or URL the keys came from; absent when none was given. */
  keys_from?: string;
}

/** The keys `--card-key` names; a file or URL that gives none is a KeyFileError (exit 2). */
export async function cardKeysFrom(given: string, target: URL): Promise<VerificationKey[]> {
  if (!/^https?:\/\//i.test(given)) return loadVerificationKeys(given, FLAG);
  const url = new URL(given);
  if (!isLoopbackHost(url.hostname) && url.origin !== target.origin)
    throw new KeyFileError(`${FLAG}: ${given} is neither on loopback nor on the target's origin (${target.origin}); give the JWKS as a file instead`);
  const text = await fetchBounded(url);
  try {
    return verificationKeysFromText(text);
  } catch (e) {
    if (e instanceof CardKeyError) throw new KeyFileError(`${FLAG}: ${given} ${e.message}`);
    throw e;
  }
}

async function fetchBounded(url: URL): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_MS), headers: { accept: 'application/jwk-set+json, application/json' } });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    throw new KeyFileError(
      `${FLAG}: cannot fetch ${url.href} (${err.name === 'TimeoutError' ? `no reply within ${FETCH_MS} ms` : (err.cause?.code ?? err.message)})`,
    );
  }
  if (res.status !== 200) throw new KeyFileError(`${FLAG}: ${url.href} answered HTTP ${res.status}`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
    total += read.value.length;
    if (total > MAX_KEY_FILE_BYTES) {
      await reader!.cancel();
      throw new KeyFileError(`${FLAG}: ${url.href} sent more than ${MAX_KEY_FILE_BYTES} bytes: no JWKS is that large`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The card's signatures, verified when keys were given. */
export async function checkCardSignatures(card: unknown, keys: VerificationKey[] | undefined, keysFrom: string | undefined): Promise<CardSignatureResult> {
  const report = await verifyCardSignatures(card, keys);
  return keysFrom === undefined ? report : { ...report, keys_from: keysFrom };
}

/** The AAP-CARD-007 findings: one per signature when the result says valid or invalid. */
export function signatureFindings(result: CardSignatureResult): Finding[] {
  if (result.state !== 'valid' && result.state !== 'invalid') return [];
  if (result.state === 'valid') {
    const good = result.signatures.findIndex((s) => s.valid === true);
    const s = result.signatures[good]!;
    return [{ rule: 'AAP-CARD-007', ok: true, pointer: `/signatures/${good}`, expected: 'a signature that verifies', seen: `valid (kid ${s.kid}, ${s.alg})` }];
  }
  return result.signatures.map((s, i) => ({
    rule: 'AAP-CARD-007',
    ok: false,
    pointer: `/signatures/${i}`,
    expected: 'a signature that verifies over the canonical card',
    seen: `${s.problem ?? 'invalid'}${s.kid ? ` (kid ${s.kid}${s.alg ? `, ${s.alg}` : ''})` : ''}`,
  }));
}

/** One line a person reads. */
export function describeCardSignatures(result: CardSignatureResult): string {
  const first = result.signatures[0];
  switch (result.state) {
    case 'none':
      return 'none (the card is not signed)';
    case 'unverified':
      return `signed, not verified (${result.signatures.length} signature${result.signatures.length === 1 ? '' : 's'}, first kid ${first?.kid}, ${first?.alg}; give --card-key FILE|JWKS-URL to verify)`;
    case 'valid': {
      const s = result.signatures.find((x) => x.valid)!;
      return `valid (kid ${s.kid}, ${s.alg}) against ${result.keys_from}`;
    }
    case 'invalid':
      return `INVALID: ${result.signatures.map((s) => `${s.kid ?? '?'}: ${s.problem}`).join('; ')}${result.keys_from ? ` (against ${result.keys_from})` : ''}`;
  }
}
