/**
 * A buyer that survives AAP dealers, on @a2a-js/sdk@1.3.0 and `aap-chaos/buyer`. It makes the
 * shopping trip of `shopping-trip.ts`; what a failure means is read by `readAapError` (both
 * profiles, the payload found by `@type`) and what to do next is decided by `retryPolicy`:
 *
 * - stop on `retryable: false` (the same request would fail the same way);
 * - RATE_LIMITED: wait the dealer's hint, and hold back every other call of that skill too;
 * - other retryable errors and replies that never arrived: back off, each wait longer than the
 *   last, at most `maxRetries` times;
 * - -32008: activate the URI the error names, if this buyer implements it, and send again once;
 * - lead.submit is resent with the same idempotency_key and payload (the policy checks it has one);
 * - a vehicle the dealer called VEHICLE_UNAVAILABLE / VEHICLE_NOT_FOUND is never asked for again.
 */
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, aapFetch, readAapError, retryPolicy, type RetryPolicy } from 'aap-chaos/buyer';
import { goShopping, sendSkill, withExtensions, type CallOutcome, type ShoppingPlan, type SkillCaller, type SkillData } from './shopping-trip.js';

const GONE_CODES = new Set(['VEHICLE_UNAVAILABLE', 'VEHICLE_NOT_FOUND']);

export interface ResilienceSettings {
  /** Retries of one call before giving up (default 4). */
  maxRetries?: number;
  /**
   * Ceiling of the first backoff wait in ms; it doubles per retry (default 300). Keep it well above
   * timer noise, or a dealer (and the report's backoff check) cannot see the waits grow.
   */
  baseDelayMs?: number;
  /** Extension URIs to activate from the start (default none: learn them from -32008). */
  extensions?: string[];
  /** Extension URIs this buyer implements (default AAP v1.3 and the 2.0 draft). */
  supportedExtensions?: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ResilientCaller implements SkillCaller {
  private readonly policy: RetryPolicy;
  private readonly extensions: string[];
  /** Vehicles the dealer said are gone; asking again would only repeat the answer. */
  private readonly goneVehicles = new Set<string>();
  /** Per skill, the time before which the dealer told us not to call it. */
  private readonly quietUntil = new Map<string, number>();

  constructor(
    private readonly client: Client,
    settings: ResilienceSettings = {},
  ) {
    this.policy = retryPolicy({
      maxAttempts: (settings.maxRetries ?? 4) + 1,
      baseDelayMs: settings.baseDelayMs ?? 300,
      // Equal jitter, so every wait is longer than the last: the report grades the trend of the gaps,
      // and a reference buyer must pass on every run (full jitter sometimes waits less later on).
      jitter: 'equal',
      supportedExtensions: settings.supportedExtensions ?? [AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT],
    });
    this.extensions = [...(settings.extensions ?? [])];
  }

  async call(skill: string, data: SkillData): Promise<CallOutcome> {
    const vin = skill === 'inventory.vehicle' ? String(data.vin) : undefined;
    if (vin !== undefined && this.goneVehicles.has(vin)) return { skill, ok: false, reason: `skipped: ${vin} is gone` };

    // `data` is never changed between attempts: a lead keeps its idempotency_key and payload.
    for (let attempt = 1; ; attempt++) {
      await this.waitForQuietPeriod(skill);
      let failure: unknown;
      try {
        return { skill, ok: true, data: await sendSkill(this.client, skill, data, withExtensions(this.extensions)) };
      } catch (error) {
        failure = error;
      }
      const reading = readAapError(failure);
      const next = this.policy.decide(reading, { attempt, skill, data, activeExtensions: this.extensions });
      if (next.action === 'activate') this.extensions.push(next.extensionUri);
      else if (next.action === 'retry' && reading.retryAfterMs !== undefined) {
        // Never sooner than told; the jitter keeps many buyers from coming back in the same instant.
        this.quietUntil.set(skill, Date.now() + next.afterMs + Math.random() * 50);
      } else if (next.action === 'retry') await sleep(next.afterMs);
      else {
        // `fix` needs a person or a smarter agent to change the request: this buyer reports it.
        if (vin !== undefined && reading.code !== undefined && GONE_CODES.has(reading.code)) this.goneVehicles.add(vin);
        return { skill, ok: false, reason: next.reason };
      }
    }
  }

  private async waitForQuietPeriod(skill: string): Promise<void> {
    const until = this.quietUntil.get(skill);
    if (until !== undefined && until > Date.now()) await sleep(until - Date.now());
  }
}

/** A client for the dealer at `url`, through aapFetch, which keeps what the SDK drops. */
export async function connect(url: string): Promise<Client> {
  const fetchImpl = aapFetch();
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(url);
}

/** Connects to the dealer at `url` and makes the trip. */
export async function runResilientBuyer(url: string, plan: ShoppingPlan, settings: ResilienceSettings = {}): Promise<CallOutcome[]> {
  return goShopping(new ResilientCaller(await connect(url), settings), plan);
}
