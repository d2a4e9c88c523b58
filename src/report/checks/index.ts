/**
 * The report's checks. `CHECK_NAMES` is the one list of names, in the order the report lists
 * them; `CHECKS` maps every name to its check, so adding a check is one file beside this one
 * plus its name here, and the compiler asks for the rest.
 */
import { activationCheck } from './activation.js';
import { backoffCheck } from './backoff.js';
import type { Check } from './check.js';
import { idempotencyCheck } from './idempotency.js';
import { noStormCheck } from './no-storm.js';
import { nonRetryableCheck } from './non-retryable.js';
import { retryAfterCheck } from './retry-after.js';
import { soldVehicleCheck } from './sold-vehicle.js';
import { versionCheck } from './version.js';
import { validationFixCheck } from './validation-fix.js';
import { freshKeyCheck } from './fresh-key.js';
import { payloadByTypeCheck } from './payload-by-type.js';
import { isolationCheck } from './isolation.js';
import { noDuplicateLeadCheck } from './no-duplicate-lead.js';
import { slowDealerCheck } from './slow-dealer.js';
import { cardTrustCheck } from './card-trust.js';

export const CHECK_NAMES = [
  'retry-after',
  'non-retryable',
  'backoff',
  'activation',
  'version',
  'idempotency',
  'no-storm',
  'sold-vehicle',
  'validation-fix',
  'fresh-key',
  'payload-by-type',
  'card-trust',
  'isolation',
  'no-duplicate-lead',
  'slow-dealer',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CHECKS: Readonly<Record<CheckName, Check>> = {
  'retry-after': retryAfterCheck,
  'non-retryable': nonRetryableCheck,
  backoff: backoffCheck,
  activation: activationCheck,
  version: versionCheck,
  idempotency: idempotencyCheck,
  'no-storm': noStormCheck,
  'sold-vehicle': soldVehicleCheck,
  'validation-fix': validationFixCheck,
  'fresh-key': freshKeyCheck,
  'payload-by-type': payloadByTypeCheck,
  'card-trust': cardTrustCheck,
  isolation: isolationCheck,
  'no-duplicate-lead': noDuplicateLeadCheck,
  'slow-dealer': slowDealerCheck,
};

/** The checks a journal of one dealer is graded by: all but those across dealers. */
export const ONE_DEALER_CHECK_NAMES: readonly CheckName[] = CHECK_NAMES.filter((name) => !CHECKS[name].acrossDealers);

/** The checks an exam of one dealer requires unless asked for more: all but the opt-in ones (card-trust). */
export const DEFAULT_EXAM_CHECK_NAMES: readonly CheckName[] = ONE_DEALER_CHECK_NAMES.filter((name) => !CHECKS[name].optIn);

export type { Check, CheckOutcome, ClientJournal, Verdict } from './check.js';
