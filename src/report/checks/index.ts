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

export const CHECK_NAMES = ['retry-after', 'non-retryable', 'backoff', 'activation', 'version', 'idempotency', 'no-storm', 'sold-vehicle'] as const;
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
};

export type { Check, CheckOutcome, ClientJournal, Verdict } from './check.js';
