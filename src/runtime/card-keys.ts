/**
 * The keys that sign agent cards in a run, loaded before anything starts (a bad key file is one
 * line and exit 2): --card-signing-key for the cards the proxy serves, --mock-sign-card for the
 * embedded mock dealers' own cards. With only the mock's key, the proxy signs with it too, so the
 * card the buyer gets verifies against the one key.
 */
import { loadCardSigningKey } from '../common/card-key-file.js';
import type { CardSigningKey } from '../protocol/card-signature.js';
import type { CheckedOptions } from './types.js';

export interface CardKeys {
  /** Signs every card the proxy serves. */
  proxy?: CardSigningKey;
  /** Signs the embedded mock dealers' cards. */
  mock?: CardSigningKey;
  /** Where the proxy's key came from, for the start-up line. */
  proxySource?: string;
}

export async function loadCardKeys(opts: Pick<CheckedOptions, 'cardSigningKey' | 'mock' | 'target' | 'dealers' | 'mockDealers'>): Promise<CardKeys> {
  const given = opts.cardSigningKey;
  const proxy = given === undefined ? undefined : await loadCardSigningKey(given, '--card-signing-key');
  const mockFile = opts.mock?.signCard;
  const mock = mockFile === undefined ? undefined : await loadCardSigningKey(mockFile, '--mock-sign-card');
  const embedded = (opts.target === undefined && (opts.dealers?.length ?? 0) === 0) || opts.mockDealers !== undefined;
  if (proxy) return { proxy, mock, proxySource: typeof given === 'string' ? `--card-signing-key ${given}` : 'the JWK given' };
  if (mock && embedded) return { proxy: mock, mock, proxySource: `the embedded mock's key (--mock-sign-card ${mockFile})` };
  return { mock };
}
