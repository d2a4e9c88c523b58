/** The report's checks, in the order the report lists them. */
import { activationCheck } from './activation.js';
import { backoffCheck } from './backoff.js';
import type { Check } from './check.js';
import { idempotencyCheck } from './idempotency.js';
import { noStormCheck } from './no-storm.js';
import { nonRetryableCheck } from './non-retryable.js';
import { retryAfterCheck } from './retry-after.js';
import { soldVehicleCheck } from './sold-vehicle.js';
import { versionCheck } from './version.js';
import { isolationCheck } from './isolation.js';
import { noDuplicateLeadCheck } from './no-duplicate-lead.js';
import { slowDealerCheck } from './slow-dealer.js';

export const CHECKS: readonly Check[] = [
  retryAfterCheck,
  nonRetryableCheck,
  backoffCheck,
  activationCheck,
  versionCheck,
  idempotencyCheck,
  noStormCheck,
  soldVehicleCheck,
];

/** Graded after the others when the journal names dealers (one proxy in front of several). */
export const DEALER_CHECKS: readonly Check[] = [isolationCheck, noDuplicateLeadCheck, slowDealerCheck];

export { CHECK_NAMES, DEALER_CHECK_NAMES, type Check, type CheckName, type CheckOutcome, type ClientJournal, type Verdict } from './check.js';
