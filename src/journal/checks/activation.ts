/**
 * activation: after -32008 (EXTENSION_SUPPORT_REQUIRED) the buyer's next request names the
 * required extension in A2A-Extensions, or the buyer stops. The required URI is the one the
 * report was told; when it was not told, any AAP extension URI counts.
 */
import { EXTENSIONS_HEADER, isAapExtensionUri } from '../../protocol/codes.js';
import type { JournalEntry } from '../entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { nextRequest, sawError } from './journal-facts.js';

const EXTENSION_REQUIRED_RPC_CODE = -32008;

function isExtensionRequired(entry: JournalEntry): boolean {
  return sawError(entry) && (entry.rpc_code === EXTENSION_REQUIRED_RPC_CODE || entry.error_code === 'EXTENSION_SUPPORT_REQUIRED');
}

export const activationCheck: Check = {
  name: 'activation',
  rule: 'After -32008, the next request carries the required extension URI in A2A-Extensions, or the client stops.',
  grade({ requests, extensionUri }) {
    const activates = (e: JournalEntry): boolean =>
      (e.extensions ?? []).some((uri) => (extensionUri === undefined ? isAapExtensionUri(uri) : uri === extensionUri));
    const wanted = extensionUri ?? 'the AAP extension URI';
    const handled: string[] = [];
    const ignored: string[] = [];
    let refusals = 0;
    for (const [index, refusal] of requests.entries()) {
      if (!isExtensionRequired(refusal)) continue;
      refusals++;
      const next = nextRequest(requests, index, () => true);
      if (next === undefined) handled.push(refusal.id); // stopping is an acceptable answer
      else if (activates(next)) handled.push(refusal.id, next.id);
      else ignored.push(refusal.id, next.id);
    }

    if (refusals === 0) return notExercised('no -32008 (extension required) reply reached this client');
    if (ignored.length === 0) {
      return pass(handled, `activated the extension or stopped after ${plural(refusals, '-32008 reply', '-32008 replies')}`);
    }
    return fail(
      ignored,
      `sent ${plural(ignored.length / 2, 'request')} after -32008 without ${wanted} in ${EXTENSIONS_HEADER}; ` +
        `add the URI the error names to the ${EXTENSIONS_HEADER} header of every request`,
    );
  },
};
