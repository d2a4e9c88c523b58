/**
 * activation: after -32008 (EXTENSION_SUPPORT_REQUIRED) the buyer's next request names the
 * required extension in A2A-Extensions, or the buyer stops. The required URI is, in this order:
 * the one the report was told (`--extension-uri`), the one the -32008 named (`required_extension`),
 * the one in force on that line (`extension_uri`). Only a journal that has none of them (written
 * by hand, or by an older version) lets any AAP extension URI count.
 */
import { EXTENSIONS_HEADER, isAapExtensionUri } from '../../protocol/codes.js';
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { nextRequest, sawError } from './read-line.js';

const EXTENSION_REQUIRED_RPC_CODE = -32008;

function isExtensionRequired(entry: JournalEntry): boolean {
  return sawError(entry) && (entry.rpc_code === EXTENSION_REQUIRED_RPC_CODE || entry.error_code === 'EXTENSION_SUPPORT_REQUIRED');
}

export const activationCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-004',
    level: 'MUST',
    profiles: ['2.0'],
    seed: {
      section: 'The activation error MUST carry recovery instructions',
      quote: 'A client retries with that URI only if it already implements the advertised AAP version',
    },
  },
  rule: 'After -32008, the next request carries the exact extension URI the error named in A2A-Extensions, or the client stops.',
  grade({ requests, extensionUri, thresholds }) {
    const handled: string[] = [];
    const ignored: string[] = [];
    let wanted: string | undefined;
    let refusals = 0;
    for (const [index, refusal] of requests.entries()) {
      if (!isExtensionRequired(refusal)) continue;
      refusals++;
      const required = extensionUri ?? refusal.required_extension ?? refusal.extension_uri;
      const activates = (e: JournalEntry): boolean => (e.extensions ?? []).some((uri) => (required === undefined ? isAapExtensionUri(uri) : uri === required));
      const next = nextRequest(requests, index, () => true, thresholds.retry_after_tolerance_ms);
      if (next === undefined)
        handled.push(refusal.id); // stopping is an acceptable answer
      else if (activates(next)) handled.push(refusal.id, next.id);
      else {
        ignored.push(refusal.id, next.id);
        wanted ??= required;
      }
    }

    if (refusals === 0) return notExercised('no -32008 (extension required) reply reached this client');
    if (ignored.length === 0) {
      return pass(handled, `activated the extension or stopped after ${plural(refusals, '-32008 reply', '-32008 replies')}`);
    }
    return fail(
      ignored,
      `sent ${plural(ignored.length / 2, 'request')} after -32008 without ${wanted ?? 'an AAP extension URI'} in ${EXTENSIONS_HEADER}; ` +
        `add the exact URI the error names to the ${EXTENSIONS_HEADER} header of every request`,
    );
  },
};
