/**
 * payload-by-type: the buyer finds the AAP payload among a 2.0 error's `data` entries by its
 * `@type`, never by position, and ignores entries it does not know. One journal cannot show it:
 * a buyer that reads `data[2]` behaves the same as long as the entries come in the usual order.
 * `aap-chaos exam` grades it differentially instead: the same faults once as usual and once with
 * every error's entries shuffled and padded with an unknown `@type` (`envelope: {shuffle: true,
 * unknown_detail: true}`); the buyer's verdicts and reactions must be the same in both runs
 * (src/exam/differential.ts). Graded from one journal, the check is never exercised.
 */
import { notExercised, type Check } from './check.js';

export const payloadByTypeCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-011',
    level: 'MUST',
    profiles: ['2.0'],
    seed: { section: 'Errors (introduction)', quote: 'MUST locate the AAP payload by its @type, never by array position, and MUST ignore entries' },
  },
  rule: 'The client finds the AAP error payload by its @type and ignores unknown entries: shuffled, padded envelopes change none of its verdicts or reactions (graded by aap-chaos exam from a pair of runs).',
  grade() {
    return notExercised('graded by aap-chaos exam, which compares a run with shuffled, padded error envelopes to the same run without');
  },
};
