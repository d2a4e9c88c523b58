/**
 * version: under the 2.0 profile every request carries `A2A-Version: 1.0`. The 1.3 release does
 * not require the header, so there the check is not exercised; nor when the report was not told
 * the profile, since a missing header is only wrong under 2.0.
 */
import { A2A_VERSION, VERSION_HEADER } from '../../protocol/codes.js';
import type { JournalEntry } from '../entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';

function describeVersion(entry: JournalEntry): string {
  if (entry.a2a_version === undefined || entry.a2a_version === null) return 'no header';
  return entry.a2a_version === '' ? 'an empty header' : `"${entry.a2a_version}"`;
}

export const versionCheck: Check = {
  name: 'version',
  rule: `Under the 2.0 profile, every request carries ${VERSION_HEADER}: ${A2A_VERSION}.`,
  grade({ requests, profile }) {
    if (profile === undefined) return notExercised(`profile not given; grade with profile 2.0 to check ${VERSION_HEADER}`);
    if (profile !== '2.0') return notExercised(`profile ${profile} does not require ${VERSION_HEADER}`);
    if (requests.length === 0) return notExercised('this client sent no JSON-RPC requests');
    const wrong = requests.filter((e) => e.a2a_version !== A2A_VERSION);
    if (wrong.length === 0) return pass(requests.map((e) => e.id), `all ${plural(requests.length, 'request')} carried ${VERSION_HEADER}: ${A2A_VERSION}`);
    return fail(
      wrong.map((e) => e.id),
      `${wrong.length} of ${plural(requests.length, 'request')} lacked ${VERSION_HEADER}: ${A2A_VERSION} (the first had ${describeVersion(wrong[0])}); ` +
        `send the header on every request`,
    );
  },
};
