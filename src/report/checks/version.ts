/**
 * version: under the 2.0 profile every request carries `A2A-Version: 1.0`. The profile is the one
 * the report was told (`--profile`), else the one each journal line records as in force. The 1.3
 * release does not require the header, so requests under 1.3 are not graded; nor lines that name
 * no profile when the report was not told one, since a missing header is only wrong under 2.0.
 */
import { A2A_VERSION, VERSION_HEADER } from '../../protocol/codes.js';
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';

function describeVersion(entry: JournalEntry): string {
  if (entry.a2a_version === undefined || entry.a2a_version === null) return 'no header';
  return entry.a2a_version === '' ? 'an empty header' : `"${entry.a2a_version}"`;
}

export const versionCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-005',
    level: 'MUST',
    profiles: ['2.0'],
    seed: { section: 'A2A protocol-level errors › VersionNotSupportedError', quote: 'The A2A-Version header names a Major.Minor the interface does not serve' },
  },
  rule: `Under the 2.0 profile, every request carries ${VERSION_HEADER}: ${A2A_VERSION}.`,
  grade({ requests: all, profile }) {
    if (all.length === 0) return notExercised('this client sent no JSON-RPC requests');
    const profileOf = (e: JournalEntry) => profile ?? e.profile;
    const requests = all.filter((e) => profileOf(e) === '2.0');
    if (requests.length === 0) {
      const seen = profile ?? all.find((e) => e.profile !== undefined)?.profile;
      return seen === undefined
        ? notExercised(`profile not given and not in the journal; grade with profile 2.0 to check ${VERSION_HEADER}`)
        : notExercised(`profile ${seen} does not require ${VERSION_HEADER}`);
    }
    const wrong = requests.filter((e) => e.a2a_version !== A2A_VERSION);
    if (wrong.length === 0)
      return pass(
        requests.map((e) => e.id),
        `all ${plural(requests.length, 'request')} under profile 2.0 carried ${VERSION_HEADER}: ${A2A_VERSION}`,
      );
    return fail(
      wrong.map((e) => e.id),
      `${wrong.length} of ${plural(requests.length, 'request')} under profile 2.0 lacked ${VERSION_HEADER}: ${A2A_VERSION} (the first had ${describeVersion(wrong[0])}); ` +
        `send the header on every request`,
    );
  },
};
