/**
 * The card keys flags name: a private key that signs agent cards (`--card-signing-key`,
 * `--mock-sign-card`, `mock --sign-card`: PKCS#8 PEM or a JWK file) and the public keys `check
 * --card-key` verifies with (PEM, JWK or JWK set). A key file is small: it is read as a regular
 * file of at most 64 KiB, so a FIFO or a huge file is refused at once, and every problem is one
 * line naming the flag and the file.
 */
import type { JWK } from 'jose';
import { CardKeyError, cardSigningKey, privateKeyFromText, type CardSigningKey } from '../protocol/card-signature.js';
import { verificationKeysFromText, type VerificationKey } from '../protocol/card-verify.js';
import { readRegularFile } from './regular-file.js';

/** A key file that cannot be used; the message is one line naming the flag and the file. */
export class KeyFileError extends Error {
  override name = 'KeyFileError';
}

/** Far more than any key file (an RSA-4096 PKCS#8 PEM is about 3.3 KB). */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

async function keyFileText(file: string, flag: string): Promise<string> {
  const read = await readRegularFile(file, {
    maxBytes: MAX_KEY_FILE_BYTES,
    what: 'a key',
    tooLarge: (bytes, atLeast) => `is ${atLeast ? 'at least ' : ''}${bytes} bytes, more than a key file holds (${MAX_KEY_FILE_BYTES} at most)`,
  });
  if (!read.ok) throw new KeyFileError(`${flag}: ${file} ${read.message}`);
  return read.bytes.toString('utf8');
}

/** Runs `read`, naming the flag and the file in the message of a key it refuses. */
async function named<T>(flag: string, source: string, read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof CardKeyError) throw new KeyFileError(`${flag}: ${source} ${e.message}`);
    throw e;
  }
}

/**
 * The signing key a flag names: a file (PKCS#8 PEM or JWK), or, from the library, a private JWK
 * object given inline (`exam --card-trust` makes one per exam).
 */
export async function loadCardSigningKey(given: string | JWK, flag: string): Promise<CardSigningKey> {
  if (typeof given !== 'string')
    return named(flag, 'the JWK given', async () => {
      const { key, kid } = privateKeyFromText(JSON.stringify(given));
      return cardSigningKey(key, kid);
    });
  const text = await keyFileText(given, flag);
  return named(flag, given, async () => {
    const { key, kid } = privateKeyFromText(text);
    return cardSigningKey(key, kid);
  });
}

/** The public keys a file names (a PEM key, a JWK or a JWK set). */
export async function loadVerificationKeys(file: string, flag: string): Promise<VerificationKey[]> {
  const text = await keyFileText(file, flag);
  return named(flag, file, () => verificationKeysFromText(text));
}
