/**
 * What each report check must say of a zoo member in each scenario of the default battery, derived
 * from the member's parameters and the scenario's faults alone — never from running the grader.
 *
 * An expectation is a verdict, or a verdict with an alternative where the scenario's random faults
 * decide whether the condition arises at all (`flaky-internal` throws INTERNAL_ERROR at one request
 * in five: whether one lands on a lead is chance). `undecided` marks the few cells where the seed's
 * rule cannot be told from one run: a buyer that retries at once twice in a whole run, or waits a
 * fixed time in chains of one retry, is indistinguishable from full jitter by design (docs/report.md,
 * backoff: "the price of that guarantee"). Such cells are counted apart, never as a pass.
 */
import type { Verdict } from '../../src/report/checks/check.js';
import { DEFAULT_EXAM_CHECK_NAMES, type CheckName } from '../../src/report/checks/index.js';
import type { Member } from './members.js';

/** The checks of a one-dealer report: the ones the zoo proves. */
/** The checks of the default battery: not those across dealers, nor the opt-in card-trust (the zoo's buyers fetch no card). */
export type ZooCheck = Exclude<CheckName, 'isolation' | 'no-duplicate-lead' | 'slow-dealer' | 'card-trust'>;

export interface Expectation {
  verdict: Verdict;
  /** Also right: the run may not create the condition (chance faults). */
  or?: Verdict;
  /** The seed's rule cannot be told from this run; not counted either way. */
  undecided?: true;
}

const NE: Verdict = 'NOT EXERCISED';
const is = (verdict: Verdict, extra: Partial<Expectation> = {}): Expectation => ({ verdict, ...extra });
const TWO_POINT_OH = new Set(['activation-required', 'version-mismatch', 'lead-recovery', 'lead-recovery+untidy-envelopes']);
const LEAD_RECOVERY = new Set(['lead-recovery', 'lead-recovery+untidy-envelopes']);

/** Under 2.0 the member gets nothing past the dealer's header policy (-32008 or -32009 on every call that reaches it). */
const blocked = (m: Member, s: string) => TWO_POINT_OH.has(s) && (m.version === 'omits' || m.activation === 'never');

/** How its lead keys fare when a lead is retried. */
const keyVerdict = (m: Member): Verdict => (m.idempotency === 'fresh' || m.idempotency === 'none' ? 'FAIL' : 'PASS');

function version(m: Member, s: string): Expectation {
  if (!TWO_POINT_OH.has(s)) return is(NE);
  return is(m.version === '1.0' ? 'PASS' : 'FAIL');
}

/** -32008 reaches it where the rule or the 2.0 mock asks for the extension before anything else refuses it. */
function activation(m: Member, s: string): Expectation {
  if (!TWO_POINT_OH.has(s)) return is(NE);
  // The 2.0 mock checks the version first; version-mismatch refuses a missing version before the mock.
  if (s !== 'activation-required' && m.version === 'omits') return is(NE);
  return is(m.activation === 'activates' ? 'PASS' : 'FAIL');
}

/** rate-limit-storm is the one scenario with RATE_LIMITED: ten searches meet it; a hint read in ms is waited out. */
function rateLimited(m: Member, s: string): Expectation {
  if (s !== 'rate-limit-storm') return is(NE);
  return is(m.hint === 'ms' ? 'PASS' : 'FAIL'); // the limiter's hint is in ms: a seconds-only reader sees none
}

function nonRetryable(m: Member, s: string): Expectation {
  if (blocked(m, s) && !LEAD_RECOVERY.has(s)) return is(NE);
  // The final INTERNAL_ERROR on the first lead, resent as the table default says, with an unchanged key.
  if (s === 'retryable-overrides' && m.retryable === 'table' && m.retry !== 'none' && m.idempotency !== 'fresh') return is('FAIL');
  // The conflicting lead resent as it was.
  if (LEAD_RECOVERY.has(s) && m.idempotency === 'reuse-after-conflict' && m.retry !== 'none') {
    return s === 'lead-recovery' || m.reading === 'type' ? is('FAIL') : is('FAIL', { or: 'PASS' }); // a misread conflict is given up
  }
  return is('PASS');
}

function backoff(m: Member, s: string): Expectation {
  if (!['flaky-internal', 'retryable-overrides', ...LEAD_RECOVERY].includes(s)) return is(NE);
  if (m.retry === 'at-once') return s === 'flaky-internal' ? is('FAIL') : is('FAIL', { undecided: true });
  // Constant waits fail the seed's "exponential", but in flaky-internal's short chains the rule's
  // test of growth cannot tell them from full jitter at its 0.5 % level (docs/report.md, backoff).
  if (m.retry === 'fixed') return is('FAIL', { undecided: true });
  return is('PASS');
}

function idempotency(m: Member, s: string): Expectation {
  if (m.retry === 'none') return is(NE); // it never retries a lead
  if (LEAD_RECOVERY.has(s)) return is(keyVerdict(m)); // the first lead's reply is cut
  if (s === 'flaky-internal') return is(keyVerdict(m), { or: NE }); // a random INTERNAL_ERROR may hit a lead
  return is(NE);
}

function soldVehicle(m: Member, s: string): Expectation {
  if (blocked(m, s)) return is(NE);
  if (s === 'flaky-internal' && m.retry === 'none') return is('PASS', { or: NE }); // both sold lookups may meet a random INTERNAL_ERROR
  if (LEAD_RECOVERY.has(s)) return is('PASS'); // the sold VIN reaches the mock
  return is('PASS');
}

function validationFix(m: Member, s: string): Expectation {
  if (blocked(m, s) && !LEAD_RECOVERY.has(s)) return is(NE);
  // The sloppy search breaks two places: the dealer lists both, a fix-one buyer fixes one.
  let verdict: Verdict = m.validation === 'fix-one' ? 'FAIL' : 'PASS';
  // Blocked in lead-recovery, the injected refusal lands on the clean second search, where there is one place to fix.
  if (LEAD_RECOVERY.has(s) && blocked(m, s)) verdict = 'PASS';
  // retryable-overrides refuses the sloppy search as retryable, listing a place it lacks: only a buyer
  // that sends it again meets the dealer's own refusal.
  if (s === 'retryable-overrides' && (m.retryable === 'table' || m.retry === 'none')) verdict = 'PASS';
  if (s === 'lead-recovery+untidy-envelopes' && m.reading === 'position' && verdict === 'FAIL') return is('FAIL', { or: 'PASS' }); // misread: given up
  if (s === 'flaky-internal' && m.retry === 'none') return is(verdict, { or: NE }); // a random error may take the sloppy search
  return is(verdict);
}

function freshKey(m: Member, s: string): Expectation {
  // The conflict meets the lead after the first lead's retry: it needs a retry and a key.
  if (!LEAD_RECOVERY.has(s) || m.retry === 'none' || m.idempotency === 'none') return is(NE);
  if (m.idempotency !== 'reuse-after-conflict') return is('PASS');
  return s === 'lead-recovery' || m.reading === 'type' ? is('FAIL') : is('FAIL', { or: 'PASS' });
}

/** A positional reader shows only where a misread payload changes what it does: it must act on some error's content. */
function payloadByType(m: Member, s: string): Expectation {
  if (s !== 'lead-recovery+untidy-envelopes') return is(NE);
  if (m.reading === 'type') return is('PASS');
  const actsOnContent = m.validation !== 'give-up' || m.retry !== 'none' || ['fresh-after-conflict', 'reuse-after-conflict'].includes(m.idempotency);
  return is(actsOnContent ? 'FAIL' : 'PASS');
}

export function expected(m: Member, scenario: string): Record<ZooCheck, Expectation> {
  return {
    'retry-after': rateLimited(m, scenario),
    'non-retryable': nonRetryable(m, scenario),
    backoff: backoff(m, scenario),
    activation: activation(m, scenario),
    version: version(m, scenario),
    idempotency: idempotency(m, scenario),
    'no-storm': rateLimited(m, scenario),
    'sold-vehicle': soldVehicle(m, scenario),
    'validation-fix': validationFix(m, scenario),
    'fresh-key': freshKey(m, scenario),
    'payload-by-type': payloadByType(m, scenario),
  };
}

export const ZOO_CHECKS = DEFAULT_EXAM_CHECK_NAMES as readonly ZooCheck[];
