/**
 * Metamorphic relations of the grader, over whole battery runs: changes to a buyer (or to the
 * dealer's envelopes) that must leave every verdict as it was, and changes that must flip exactly
 * the checks about what changed. A battery verdict is the exam's: FAIL when any run failed, PASS
 * when any passed, else NOT EXERCISED.
 */
import type { Verdict } from '../../src/report/checks/check.js';
import type { Scenario } from '../../src/scenario/load.js';
import type { Member } from './members.js';
import { ZOO_CHECKS, type ZooCheck } from './oracle.js';
import type { ZooRun } from './run-zoo.js';

/** A buyer that does everything right, one request at a time, without noise. */
export const GOOD: Member = {
  id: 'meta-good',
  retry: 'exponential',
  hint: 'ms',
  reading: 'type',
  retryable: 'dealer',
  idempotency: 'same',
  validation: 'fix-all',
  activation: 'activates',
  version: '1.0',
  concurrency: 1,
  noise: false,
  reversed: false,
  seed: 4242,
};

const variant = (id: string, change: Partial<Member>): Member => ({ ...GOOD, ...change, id: `meta-${id}` });

/** Changes that must not change any verdict. */
export const INVARIANT: { name: string; member: Member }[] = [
  { name: 'random UUID ids and keys, clock timestamps, an unknown header', member: variant('noise', { noise: true }) },
  { name: 'three requests in flight', member: variant('concurrent', { concurrency: 3 }) },
  { name: 'three in flight, the independent searches in the other order', member: variant('reordered', { concurrency: 3, reversed: true }) },
];

/** Changes that must flip exactly the checks about them, to FAIL. */
export const FLIPS: { name: string; member: Member; flips: ZooCheck[] }[] = [
  // A request sent before the hint is both early (retry-after) and an extra inside the window (no-storm).
  { name: 'ignore the retry hint', member: variant('ignore-hint', { hint: 'ignore' }), flips: ['retry-after', 'no-storm'] },
  { name: 'read the payload by position', member: variant('by-position', { reading: 'position' }), flips: ['payload-by-type'] },
  { name: "follow the table default instead of the dealer's retryable", member: variant('table-default', { retryable: 'table' }), flips: ['non-retryable'] },
];

/** The dealer's side of a relation: every error gains a `data` entry of an unknown `@type` (under 1.3, unknown fields). */
export const UNKNOWN_ENTRY = {
  name: 'every error gains an entry of unknown @type',
  member: variant('unknown-entry', {}),
  alter: (s: Scenario): Scenario => ({ ...s, rules: [{ id: 'unknown-entry', envelope: { unknown_detail: true } }, ...(s.rules ?? [])] }),
};

export const META_MEMBERS: Member[] = [GOOD, ...INVARIANT.map((i) => i.member), ...FLIPS.map((f) => f.member)];

/** The exam's verdict per check over the battery. */
export function batteryVerdicts(runs: readonly ZooRun[]): Record<ZooCheck, Verdict> {
  const out = {} as Record<ZooCheck, Verdict>;
  for (const check of ZOO_CHECKS) {
    const verdicts = runs.map((r) => r.verdicts[check]);
    out[check] = verdicts.includes('FAIL') ? 'FAIL' : verdicts.includes('PASS') ? 'PASS' : 'NOT EXERCISED';
  }
  return out;
}

/** The checks whose battery verdict differs between two sets of runs. */
export function changed(a: readonly ZooRun[], b: readonly ZooRun[]): ZooCheck[] {
  const [x, y] = [batteryVerdicts(a), batteryVerdicts(b)];
  return ZOO_CHECKS.filter((c) => x[c] !== y[c]);
}
