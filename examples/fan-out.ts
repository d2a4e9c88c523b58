/**
 * Shopping at several dealers at once (AAP_DEALER_URLS), the resilient way and one flawed way.
 *
 * The resilient fan-out runs one independent trip per dealer, each with its own ResilientCaller:
 * a RATE_LIMITED or lost reply at one dealer is waited out (or retried) by that dealer's trip alone,
 * while the trips to the others go on. The whole fan-out answers within `budgetMs`: a dealer still
 * busy by then is left out of the answer. One lead is then submitted, to one dealer that found the
 * vehicle, with one idempotency key; a lost reply is retried at that same dealer with that same key.
 *
 * The serial fan-out is the counter-example: it asks the dealers one after the other, so a dealer's
 * retry wait holds up the calls to every other dealer, it waits for a slow dealer as long as that
 * dealer takes, and when a lead's reply is lost it sends the lead to the next dealer as a new one.
 */
import { randomUUID } from 'node:crypto';
import { ResilientCaller, connect, type ResilienceSettings } from './resilient-buyer.js';
import { sendSkill, type CallOutcome, type ShoppingPlan, type SkillCaller, type SkillData } from './shopping-trip.js';

export interface FanOutSettings extends ResilienceSettings {
  /** How long the whole fan-out may take before it answers with what it has (default 4000 ms). */
  budgetMs?: number;
  /** Pause between one dealer's calls, as a polite buyer spaces them (default 50 ms). */
  paceMs?: number;
}

export interface DealerOutcome {
  url: string;
  outcomes: CallOutcome[];
  /** False when the budget ran out before this dealer's trip was done. */
  finished: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The dealers' base URLs of AAP_DEALER_URLS (comma-separated), or undefined when it is not set. */
export function dealerUrlsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const urls = env.AAP_DEALER_URLS?.split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  return urls && urls.length > 0 ? urls : undefined;
}

/** The searches of the plan at one dealer, paced; the VINs found, first first. */
async function searchAt(caller: SkillCaller, plan: ShoppingPlan, paceMs: number, into: CallOutcome[]): Promise<string[]> {
  const found: string[] = [];
  for (const filters of plan.searches) {
    const outcome = await caller.call('inventory.search', { filters, pagination: { skip: 0, limit: plan.pageSize ?? 5 } });
    into.push(outcome);
    if (outcome.ok) found.push(...vinsOf(outcome.data));
    await sleep(paceMs);
  }
  return found;
}

function vinsOf(searchResponse: SkillData): string[] {
  const vehicles = (searchResponse.data as { vehicles?: { vin?: unknown }[] } | undefined)?.vehicles;
  return Array.isArray(vehicles) ? vehicles.map((v) => v.vin).filter((vin): vin is string => typeof vin === 'string') : [];
}

function leadFor(plan: ShoppingPlan, vin: string | undefined): SkillData {
  return { ...plan.leads[0], ...(vin === undefined ? {} : { vehicle_of_interest: { vin } }), idempotency_key: randomUUID() };
}

export async function runResilientFanOut(urls: string[], plan: ShoppingPlan, settings: FanOutSettings = {}): Promise<DealerOutcome[]> {
  const budget = sleep(settings.budgetMs ?? 4000);
  const callers = await Promise.all(urls.map(async (url) => new ResilientCaller(await connect(url), settings)));
  const results: DealerOutcome[] = urls.map((url) => ({ url, outcomes: [], finished: false }));
  let leadSent = false;
  // Each dealer on its own: nothing here waits for another dealer's call.
  const trips = callers.map(async (caller, i) => {
    const vins = await searchAt(caller, plan, settings.paceMs ?? 50, results[i]!.outcomes);
    // The first dealer to come back with a vehicle gets the one lead. The caller retries a lost
    // reply itself, at this dealer, with this lead's key and payload.
    if (!leadSent && vins.length > 0 && plan.leads.length > 0) {
      leadSent = true;
      results[i]!.outcomes.push(await caller.call('lead.submit', leadFor(plan, vins[0])));
    }
    results[i]!.finished = true;
  });
  await Promise.race([Promise.all(trips), budget]);
  return results;
}

/** The flawed fan-out: one dealer after the other, and a lost lead sent on to the next dealer. */
export async function runSerialFanOut(urls: string[], plan: ShoppingPlan, settings: FanOutSettings = {}): Promise<DealerOutcome[]> {
  const clients = await Promise.all(urls.map(connect));
  const callers = clients.map((client) => new ResilientCaller(client, settings));
  const results: DealerOutcome[] = urls.map((url) => ({ url, outcomes: [], finished: true }));
  let vin: string | undefined;
  for (const filters of plan.searches) {
    for (const [i, caller] of callers.entries()) {
      // FLAW: the next dealer waits until this one has answered, retries and all.
      const outcome = await caller.call('inventory.search', { filters, pagination: { skip: 0, limit: plan.pageSize ?? 5 } });
      results[i]!.outcomes.push(outcome);
      if (outcome.ok) vin ??= vinsOf(outcome.data)[0];
    }
  }
  if (plan.leads.length === 0) return results;
  for (const [i, client] of clients.entries()) {
    // FLAW: a lead whose reply was lost goes to the next dealer under a new key; the first may have it.
    try {
      results[i]!.outcomes.push({ skill: 'lead.submit', ok: true, data: await sendSkill(client, 'lead.submit', leadFor(plan, vin), {}) });
      break;
    } catch (error) {
      results[i]!.outcomes.push({ skill: 'lead.submit', ok: false, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}
