/**
 * The report's thresholds: the one place their names, meanings and defaults live.
 * The same names are the keys of a scenario's `report:` block and of the report flags,
 * so a value reads the same wherever a user sets it.
 */

export interface Thresholds {
  /**
   * Milliseconds a buyer may come back early and still count as on time. Covers clock and
   * scheduling noise in every timing comparison: the retry hint (`retry-after`, `no-storm`)
   * and whether backoff gaps grow (`backoff`).
   */
  retry_after_tolerance_ms: number;
  /** Retries of one request after a retryable INTERNAL_ERROR or an unknown outcome before `backoff` fails. */
  backoff_max_retries: number;
  /** Requests for a vehicle after VEHICLE_UNAVAILABLE / VEHICLE_NOT_FOUND before `sold-vehicle` fails. */
  same_vehicle_max_repeats: number;
  /** Extra requests a buyer may send inside a RATE_LIMITED retry window before `no-storm` fails. */
  storm_tolerance: number;
  /** With several dealers and one slow, milliseconds the buyer's run may take before `slow-dealer` fails. */
  slow_dealer_budget_ms: number;
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = Object.freeze({
  retry_after_tolerance_ms: 50,
  backoff_max_retries: 5,
  same_vehicle_max_repeats: 2,
  storm_tolerance: 0,
  slow_dealer_budget_ms: 10_000,
});

export const THRESHOLD_NAMES = Object.keys(DEFAULT_THRESHOLDS) as (keyof Thresholds)[];

/** A threshold value that cannot be used; the message names the threshold. */
export class ThresholdError extends Error {
  override name = 'ThresholdError';
}

/**
 * Fills the defaults in and rejects what would make a verdict meaningless: unknown names,
 * negative or non-numeric values, and fractions where a bound on retries is meant.
 */
export function resolveThresholds(overrides: Partial<Thresholds> = {}): Thresholds {
  const resolved: Thresholds = { ...DEFAULT_THRESHOLDS };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(THRESHOLD_NAMES as string[]).includes(name)) {
      throw new ThresholdError(`unknown report threshold "${name}" (known: ${THRESHOLD_NAMES.join(', ')})`);
    }
    const key = name as keyof Thresholds;
    // The two bounds count requests; the tolerances may be fractional, as the scenario schema allows.
    const isCount = key === 'backoff_max_retries' || key === 'same_vehicle_max_repeats';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (isCount && !Number.isInteger(value))) {
      const wanted = isCount ? 'a whole number ≥ 0' : 'a number ≥ 0';
      throw new ThresholdError(`report threshold ${key} must be ${wanted}, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
    }
    resolved[key] = value;
  }
  return resolved;
}
