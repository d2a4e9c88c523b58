/**
 * The requests `aap-chaos check` sends, as data: each probe names what it exercises and builds
 * one JSON-RPC request from what the card declared. A probe that cannot be built for this
 * dealer (a skill it does not declare) is left out, and the rules it would have exercised stay
 * NOT CHECKED unless another probe reaches them.
 */
import { randomUUID } from 'node:crypto';
import { A2A_VERSION, type AapSkill } from '../protocol/codes.js';
import { skillSlug } from '../protocol/conformance/schemas.js';
import { rfc3339 } from '../protocol/envelopes.js';

export interface ProbeContext {
  /** Skills the card declares, in its order. */
  skills: AapSkill[];
  extensionUri: string;
  /** Whether the card says capabilities.streaming: true. */
  streaming: boolean;
  /** An identifier of a listed vehicle, once a search has returned one. */
  vehicleKey?: Record<string, string>;
}

export interface ProbeRequest {
  method: 'SendMessage' | 'SendStreamingMessage';
  /** The skill DataPart's data (with its `type`). */
  data: Record<string, unknown>;
  /** A2A headers to send; absent ones are not sent. */
  a2aVersion?: string;
  extensions?: string;
  /** A string id instead of the numeric counter (to see the type echoed). */
  stringId?: boolean;
}

export interface Probe {
  name: string;
  /** What the probe is for, as the evidence prints it. */
  purpose: string;
  build(ctx: ProbeContext): ProbeRequest | undefined;
}

const activated = (ctx: ProbeContext) => ({ a2aVersion: A2A_VERSION, extensions: ctx.extensionUri });
const call = (ctx: ProbeContext, skill: string, fields: Record<string, unknown> = {}, extra: Partial<ProbeRequest> = {}): ProbeRequest => ({
  method: 'SendMessage',
  data: { type: `${skill}.request`, ...fields },
  ...activated(ctx),
  ...extra,
});
const declares = (ctx: ProbeContext, skill: AapSkill) => ctx.skills.includes(skill);

/** A complete, valid lead: consent granted a minute ago for email follow-up. */
function validLead(): Record<string, unknown> {
  return {
    customer: { first_name: 'Conformance', last_name: 'Probe', email: 'probe@example.com' },
    consent: {
      granted_at: rfc3339(Date.now() - 60_000),
      allowed_channels: ['email'],
      consent_text: 'I agree to be contacted about this enquiry.',
      scope: ['lead_submission'],
    },
    source_agent: { name: 'aap-chaos check' },
    message: 'A conformance probe; no one needs to answer it.',
    idempotency_key: `aap-chaos-check-${randomUUID()}`,
  };
}

/** Requests with several independent problems, one per skill, so a dealer must list them all. */
const MULTI_PROBLEM: Record<AapSkill, Record<string, unknown>> = {
  'inventory.search': { filters: { year_min: 'twenty-twenty', colour: ['red'] }, pagination: { limit: 0 }, sort: { field: 'price', order: 'sideways' } },
  'inventory.facets': { filters: { year_min: 'twenty-twenty', colour: ['red'] } },
  'inventory.vehicle': { vin: 'SHORT', colour: 'red' },
  'lead.submit': {
    ...validLead(),
    customer: { first_name: '', last_name: 'Probe', email: 'probe@example.com', age: 40 },
    appointment: { appointment_type: 'haircut' },
  },
  'dealer.information': { colour: 'red', size: 'large' },
};

export const VALID_CALL_PROBES: Record<AapSkill, Probe> = {
  'dealer.information': {
    name: 'dealer.information',
    purpose: 'a valid dealer.information call',
    build: (ctx) => (declares(ctx, 'dealer.information') ? call(ctx, 'dealer.information') : undefined),
  },
  'inventory.facets': {
    name: 'inventory.facets',
    purpose: 'a valid inventory.facets call',
    build: (ctx) => (declares(ctx, 'inventory.facets') ? call(ctx, 'inventory.facets') : undefined),
  },
  'inventory.search': {
    name: 'inventory.search',
    purpose: 'a valid inventory.search call',
    build: (ctx) => (declares(ctx, 'inventory.search') ? call(ctx, 'inventory.search', { pagination: { limit: 3 } }) : undefined),
  },
  'inventory.vehicle': {
    name: 'inventory.vehicle',
    purpose: 'a valid inventory.vehicle call for a vehicle the search listed',
    build: (ctx) => (declares(ctx, 'inventory.vehicle') && ctx.vehicleKey ? call(ctx, 'inventory.vehicle', ctx.vehicleKey) : undefined),
  },
  'lead.submit': {
    name: 'lead.submit',
    purpose: 'a valid lead.submit call',
    build: (ctx) => (declares(ctx, 'lead.submit') ? call(ctx, 'lead.submit', validLead()) : undefined),
  },
};

const firstSkill = (ctx: ProbeContext) => ctx.skills[0] ?? 'dealer.information';

/** The probes after the valid calls, in the order they run. */
export const ERROR_PROBES: Probe[] = [
  {
    name: 'vehicle-not-found',
    purpose: 'inventory.vehicle for a VIN no dealer lists (VEHICLE_NOT_FOUND)',
    build: (ctx) => (declares(ctx, 'inventory.vehicle') ? call(ctx, 'inventory.vehicle', { vin: '00000000000000000' }) : undefined),
  },
  {
    name: 'many-problems',
    purpose: 'a request with several independent validation problems, all to be listed at once',
    build: (ctx) => {
      const skill = (['inventory.search', 'lead.submit', 'inventory.facets', 'inventory.vehicle', 'dealer.information'] as const).find((s) => declares(ctx, s));
      return skill ? call(ctx, skill, MULTI_PROBLEM[skill]) : undefined;
    },
  },
  {
    name: 'missing-required-field',
    purpose: 'a test-drive lead without vehicle_of_interest (MISSING_REQUIRED_FIELD or SCHEMA_VALIDATION_FAILED)',
    build: (ctx) => (declares(ctx, 'lead.submit') ? call(ctx, 'lead.submit', { ...validLead(), appointment: { appointment_type: 'test_drive' } }) : undefined),
  },
  {
    name: 'invalid-condition',
    purpose: 'a lead whose vehicle_of_interest uses the trade-in vocabulary (INVALID_CONDITION)',
    build: (ctx) =>
      declares(ctx, 'lead.submit')
        ? call(ctx, 'lead.submit', { ...validLead(), vehicle_of_interest: { year: 2022, make: 'Honda', model: 'Civic', condition: 'excellent' } })
        : undefined,
  },
  {
    name: 'extension-missing',
    purpose: 'a skill call without A2A-Extensions (-32008 under 2.0)',
    build: (ctx) => call(ctx, firstSkill(ctx), {}, { extensions: undefined }),
  },
  {
    name: 'version-missing',
    purpose: 'a skill call without A2A-Version (-32009 under 2.0)',
    build: (ctx) => call(ctx, firstSkill(ctx), {}, { a2aVersion: undefined }),
  },
  {
    name: 'version-0.3',
    purpose: 'a skill call with A2A-Version: 0.3 (-32009 under 2.0)',
    build: (ctx) => call(ctx, firstSkill(ctx), {}, { a2aVersion: '0.3' }),
  },
  {
    name: 'unknown-skill',
    purpose: 'a call to a skill no dealer implements (UNSUPPORTED_SKILL), with a string id',
    build: (ctx) => call(ctx, 'vehicle.teleport', {}, { stringId: true }),
  },
  {
    name: 'stream',
    purpose: 'SendStreamingMessage, because the card declares streaming',
    build: (ctx) => (ctx.streaming ? { ...call(ctx, firstSkill(ctx)), method: 'SendStreamingMessage' } : undefined),
  },
];

/** Only with --probe-rate-limit: the same cheap call until the dealer says RATE_LIMITED. */
export const RATE_LIMIT_PROBE: Probe = {
  name: 'rate-limit',
  purpose: 'repeated calls until RATE_LIMITED (only with --probe-rate-limit)',
  build: (ctx) => call(ctx, firstSkill(ctx)),
};

/** The JSON-RPC body of a probe request, as a buyer built on the a2a-js client would send it. */
export function probeBody(probe: ProbeRequest, id: number | string): Record<string, unknown> {
  const skill = String(probe.data.type).replace(/\.request$/, '');
  const slug = skillSlug(skill as AapSkill);
  return {
    jsonrpc: '2.0',
    id,
    method: probe.method,
    params: {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: probe.data, mediaType: `application/vnd.autoagent.${slug}-request+json` }] },
      configuration: { acceptedOutputModes: [`application/vnd.autoagent.${slug}-response+json`] },
    },
  };
}
