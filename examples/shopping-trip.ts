/**
 * The shopping trip both reference buyers make, and the plumbing they share: turning an AAP skill
 * call into an @a2a-js/sdk@1.3.0 request and reading the DataPart that comes back.
 *
 * The trip is fixed on purpose, so the two buyers differ only in how they treat failures:
 *   1. a few `inventory.search` calls;
 *   2. `inventory.vehicle` for a VIN the shopper saw last week (sold since), for the first two
 *      vehicles the searches found, and once more for last week's VIN at the end;
 *   3. one `lead.submit` per planned lead, about the first vehicle found.
 *
 * How a buyer sends one call and what it does when that call fails is its `SkillCaller`; see
 * `resilient-buyer.ts` and `naive-buyer.ts`.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ServiceParameters, withA2AExtensions, type Client, type RequestOptions } from '@a2a-js/sdk/client';

export type SkillData = Record<string, unknown>;

export interface ShoppingPlan {
  /** `filters` of each inventory.search, in order (each asks for one page of `pageSize`). */
  searches: SkillData[];
  pageSize?: number;
  /** A VIN from an earlier visit; the dealer may have sold the vehicle since. */
  rememberedVin: string;
  /** lead.submit payloads without `idempotency_key` or `vehicle_of_interest` (the buyer adds both). */
  leads: SkillData[];
}

/** What became of one call of the trip, after the buyer's own retries. */
export type CallOutcome = { skill: string; ok: true; data: SkillData } | { skill: string; ok: false; reason: string };

/** One buyer's way of making a call: it sends, retries as it sees fit, and reports the outcome. */
export interface SkillCaller {
  call(skill: string, data: SkillData): Promise<CallOutcome>;
}

/** Runs the trip; returns every call's outcome in order. Failures never stop the trip. */
export async function goShopping(caller: SkillCaller, plan: ShoppingPlan): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  const call = async (skill: string, data: SkillData): Promise<CallOutcome> => {
    const outcome = await caller.call(skill, data);
    outcomes.push(outcome);
    return outcome;
  };

  const found: string[] = [];
  for (const filters of plan.searches) {
    const outcome = await call('inventory.search', { filters, pagination: { skip: 0, limit: plan.pageSize ?? 5 } });
    if (outcome.ok) found.push(...vinsOf(outcome.data));
  }

  const shortlist = [...new Set(found)].slice(0, 2);
  for (const vin of [plan.rememberedVin, ...shortlist, plan.rememberedVin]) {
    await call('inventory.vehicle', { vin });
  }

  for (const lead of plan.leads) {
    const voi = shortlist[0] === undefined ? {} : { vehicle_of_interest: { vin: shortlist[0] } };
    await call('lead.submit', { ...lead, ...voi, idempotency_key: randomUUID() });
  }
  return outcomes;
}

/** The VINs of an inventory.search response (`{ type, data: { total, vehicles: [...] } }`). */
function vinsOf(searchResponse: SkillData): string[] {
  const vehicles = (searchResponse.data as { vehicles?: unknown } | undefined)?.vehicles;
  if (!Array.isArray(vehicles)) return [];
  return vehicles.map((v: { vin?: unknown }) => v.vin).filter((vin): vin is string => typeof vin === 'string');
}

/** `inventory.vehicle` is AAP's one media type that does not follow the skill id. */
function mediaSlug(skill: string): string {
  return skill === 'inventory.vehicle' ? 'vehicle-detail' : skill.replace(/\./g, '-');
}

/** The SDK request for one AAP skill call: a single DataPart of the skill's request media type. */
export function skillRequest(skill: string, data: SkillData): SendMessageRequest {
  const slug = mediaSlug(skill);
  return SendMessageRequest.fromJSON({
    message: {
      messageId: randomUUID(), // new per attempt; AAP dealers recognise a retry by its data, not by this id
      role: 'ROLE_USER',
      parts: [{ data: { type: `${skill}.request`, ...data }, mediaType: `application/vnd.autoagent.${slug}-request+json` }],
    },
    configuration: { acceptedOutputModes: [`application/vnd.autoagent.${slug}-response+json`] },
  });
}

/** Request options that activate the given extensions through the `A2A-Extensions` header. */
export function withExtensions(uris: readonly string[]): RequestOptions {
  return uris.length === 0 ? {} : { serviceParameters: ServiceParameters.create(withA2AExtensions(...uris)) };
}

/** Sends one call and returns the reply's DataPart data; every failure is thrown as the SDK threw it. */
export async function sendSkill(client: Client, skill: string, data: SkillData, options: RequestOptions): Promise<SkillData> {
  const result = await client.sendMessage(skillRequest(skill, data), options);
  const part = 'parts' in result ? result.parts[0] : undefined; // AAP answers with a Message, never a Task
  if (part?.content?.$case !== 'data') throw new Error(`${skill}: the dealer's reply has no DataPart`);
  return part.content.value as SkillData;
}
