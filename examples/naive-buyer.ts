/**
 * A buyer that does NOT survive AAP dealers — the counter-example to `resilient-buyer.ts`, kept so
 * the report has something to catch. It makes the same shopping trip, and on any failure it
 * simply tries again at once, up to `attempts` times:
 *
 * - it never reads the error payload, so `retryable: false` and `retry_after_ms` go unheard;
 * - it sends no `A2A-Extensions` header, even after -32008 names the extension to activate;
 * - every retry of a lead gets a fresh idempotency_key, so a lead whose answer was lost may be
 *   created twice;
 * - it keeps asking for a vehicle the dealer already said was sold.
 *
 * The loop is bounded so the buyer ends; a real one written like this often is not.
 */
import { randomUUID } from 'node:crypto';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { goShopping, sendSkill, type CallOutcome, type ShoppingPlan, type SkillCaller, type SkillData } from './shopping-trip.js';

export class NaiveCaller implements SkillCaller {
  constructor(
    private readonly client: Client,
    private readonly attempts = 5,
  ) {}

  async call(skill: string, data: SkillData): Promise<CallOutcome> {
    let lastError = 'no attempt made';
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      // FLAW: a new idempotency_key per attempt makes each retry look like a brand-new lead.
      const sent = skill === 'lead.submit' ? { ...data, idempotency_key: randomUUID() } : data;
      try {
        return { skill, ok: true, data: await sendSkill(this.client, skill, sent, {}) };
      } catch (error) {
        // FLAW: whatever went wrong, go again straight away.
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
    return { skill, ok: false, reason: lastError };
  }
}

/** Connects to the dealer at `url` and makes the shopping trip the naive way. */
export async function runNaiveBuyer(url: string, plan: ShoppingPlan, attempts = 5): Promise<CallOutcome[]> {
  const client = await new ClientFactory().createFromUrl(url);
  return goShopping(new NaiveCaller(client, attempts), plan);
}
