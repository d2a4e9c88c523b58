/**
 * A buyer that survives AAP dealers, on @a2a-js/sdk@1.3.0. It makes the shopping trip of
 * `shopping-trip.ts` and treats every failure the way the AAP error contract asks:
 *
 * - It reads the AAP error payload from the SDK error's `data`: a bare object under AAP 1.3, an
 *   entry of the `data` array found by its `@type` under 2.0 (never by position).
 * - `retryable: false` means "this exact request will fail again": it gives up on the call.
 * - RATE_LIMITED: it waits `details.retry_after_ms` (or `retry_after_seconds`) plus a little
 *   jitter before trying that skill again, and holds every other call of the skill back too.
 * - Other retryable errors, and replies that never arrived: exponential backoff with jitter,
 *   each wait longer than the one before, at most `maxRetries` times.
 * - -32008 (extension support required): it activates the URI the error names in
 *   `A2A-Extensions` and sends the request again, once.
 * - lead.submit is retried with the same idempotency_key and the same payload, so a lead whose
 *   first answer was lost cannot be created twice.
 * - A vehicle the dealer called VEHICLE_UNAVAILABLE / VEHICLE_NOT_FOUND is never asked for again.
 */
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { goShopping, sendSkill, withExtensions, type CallOutcome, type ShoppingPlan, type SkillCaller, type SkillData } from './shopping-trip.js';

/** The `@type` that marks the AAP payload among a 2.0 error's `data` entries. */
const AAP_ERROR_TYPE = 'https://autoagentprotocol.org/extensions/aap/error';
const EXTENSION_REQUIRED = -32008;
const GONE_CODES = new Set(['VEHICLE_UNAVAILABLE', 'VEHICLE_NOT_FOUND']);

export interface ResilienceSettings {
  /** Retries of one call after retryable errors before giving up (default 4). */
  maxRetries?: number;
  /**
   * First backoff wait in ms; each later wait doubles it (default 150). Keep it well above
   * timer noise, or a dealer (and the report's backoff check) cannot see the waits grow.
   */
  baseDelayMs?: number;
  /** Extension URIs to activate from the start (default none: learn them from -32008). */
  extensions?: string[];
}

/** The `aap.error` payload, as much of it as a buyer acts on. */
interface AapError {
  code: string;
  retryable?: boolean;
  details?: { retry_after_ms?: number; retry_after_seconds?: number };
}

/** Finds the AAP payload in an SDK error's `data`: the object itself (1.3) or the array entry typed as such (2.0). */
export function aapErrorOf(data: unknown): AapError | undefined {
  const candidates = Array.isArray(data) ? data.filter((entry) => entry?.['@type'] === AAP_ERROR_TYPE) : [data];
  const payload = candidates[0] as Partial<AapError> | undefined;
  return typeof payload?.code === 'string' ? (payload as AapError) : undefined;
}

/** The URI a -32008 asks for: ErrorInfo `metadata.extensionUri`, else the first URI in the message. */
export function requiredExtensionOf(data: unknown, message: string): string | undefined {
  const entries: unknown[] = Array.isArray(data) ? data : [data];
  for (const entry of entries) {
    const uri = (entry as { metadata?: { extensionUri?: unknown } } | undefined)?.metadata?.extensionUri;
    if (typeof uri === 'string') return uri;
  }
  return /https?:\/\/\S+?(?=[\s'"),]|\.?$)/.exec(message)?.[0];
}

/** How long the dealer asked us to wait, in ms, if it said. */
function retryHintMs(error: AapError): number | undefined {
  const { retry_after_ms: ms, retry_after_seconds: seconds } = error.details ?? {};
  if (typeof ms === 'number') return ms;
  return typeof seconds === 'number' ? seconds * 1000 : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What one failed attempt means for the next one. */
type Verdict = { retry: false; reason: string } | { retry: true; waitMs?: number; reason: string; activate?: string };

export class ResilientCaller implements SkillCaller {
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly extensions: string[];
  /** Vehicles the dealer said are gone; asking again would only repeat the answer. */
  private readonly goneVehicles = new Set<string>();
  /** Per skill, the time before which the dealer told us not to call it. */
  private readonly quietUntil = new Map<string, number>();

  constructor(
    private readonly client: Client,
    settings: ResilienceSettings = {},
  ) {
    this.maxRetries = settings.maxRetries ?? 4;
    this.baseDelayMs = settings.baseDelayMs ?? 150;
    this.extensions = [...(settings.extensions ?? [])];
  }

  async call(skill: string, data: SkillData): Promise<CallOutcome> {
    const vin = skill === 'inventory.vehicle' ? String(data.vin) : undefined;
    if (vin !== undefined && this.goneVehicles.has(vin)) return { skill, ok: false, reason: `skipped: ${vin} is gone` };

    // `data` is never changed between attempts: a lead keeps its idempotency_key and payload.
    let backoffs = 0;
    for (let attempt = 0; attempt <= this.maxRetries; attempt++) {
      await this.waitForQuietPeriod(skill);
      let verdict: Verdict;
      try {
        return { skill, ok: true, data: await sendSkill(this.client, skill, data, withExtensions(this.extensions)) };
      } catch (error) {
        verdict = this.judge(skill, error, backoffs);
      }
      if (!verdict.retry) {
        if (vin !== undefined && GONE_CODES.has(verdict.reason)) this.goneVehicles.add(vin);
        return { skill, ok: false, reason: verdict.reason };
      }
      if (verdict.activate !== undefined) this.extensions.push(verdict.activate);
      if (verdict.waitMs !== undefined) {
        backoffs++;
        await sleep(verdict.waitMs);
      }
    }
    return { skill, ok: false, reason: `gave up after ${this.maxRetries} retries` };
  }

  /** Decides, from one failed attempt, whether and when to try again. */
  private judge(skill: string, error: unknown, backoffs: number): Verdict {
    if (!isJsonRpcError(error)) {
      // No JSON-RPC answer at all (connection reset, HTML error page): the outcome is unknown,
      // so try again later — safe for leads because the retry carries the same idempotency_key.
      return { retry: true, waitMs: this.backoffMs(backoffs), reason: 'no answer' };
    }
    if (error.envelopeCode === EXTENSION_REQUIRED) {
      const uri = requiredExtensionOf(error.data, error.message);
      if (uri === undefined || this.extensions.includes(uri)) return { retry: false, reason: 'extension required' };
      return { retry: true, activate: uri, reason: 'extension required' };
    }
    const aap = aapErrorOf(error.data);
    if (aap === undefined || aap.retryable !== true) return { retry: false, reason: aap?.code ?? error.message };
    const hint = retryHintMs(aap);
    if (hint !== undefined) {
      // Never sooner than told; the jitter keeps many buyers from coming back in the same instant.
      this.quietUntil.set(skill, Date.now() + hint + Math.random() * 50);
      return { retry: true, reason: aap.code };
    }
    return { retry: true, waitMs: this.backoffMs(backoffs), reason: aap.code };
  }

  /**
   * base·2^n plus jitter of up to half of base·2^n. The smallest wait after n+1 (2·base·2^n)
   * exceeds the largest after n (1.5·base·2^n), so the gaps grow even with jitter.
   */
  private backoffMs(previousBackoffs: number): number {
    const step = this.baseDelayMs * 2 ** previousBackoffs;
    return step + Math.random() * (step / 2);
  }

  private async waitForQuietPeriod(skill: string): Promise<void> {
    const until = this.quietUntil.get(skill);
    if (until !== undefined && until > Date.now()) await sleep(until - Date.now());
  }
}

/** Connects to the dealer at `url` and makes the shopping trip the resilient way. */
export async function runResilientBuyer(url: string, plan: ShoppingPlan, settings: ResilienceSettings = {}): Promise<CallOutcome[]> {
  const client = await new ClientFactory().createFromUrl(url);
  return goShopping(new ResilientCaller(client, settings), plan);
}
