/**
 * `exam --card-trust`: the one key every run of the exam signs its cards with, made in memory when
 * the exam starts (never written to disk); the buyer learns its public half from AAP_CARD_JWKS_URL.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';

export async function newExamCardKey(): Promise<JWK> {
  const { exportJWK } = await import('jose');
  return { ...(await exportJWK(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey)), kid: 'aap-chaos-exam' };
}
