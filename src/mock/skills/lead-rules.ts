/**
 * The business checks of lead.submit that the JSON Schema deliberately leaves open, each giving
 * its own AAP code. Every check returns all of its problems at once, or undefined when it passes.
 */
import type { ValidationProblem } from '../../protocol/envelopes.js';
import { failure, type SkillOutcome } from './skill-handler.js';

const SALE_CONDITIONS = ['new', 'used', 'cpo'];
const TRADE_IN_CONDITIONS = ['excellent', 'good', 'fair', 'poor'];
const CONSENT_SCOPE = 'lead_submission';
/** A buyer's clock may run a little ahead; a grant this close to now is not "in the future". */
const CLOCK_SKEW_MS = 5 * 60_000;

interface Consent {
  granted_at: string;
  allowed_channels: string[];
  consent_text: string;
  scope: string[];
  expires_at?: string;
}

interface Customer {
  email?: string;
  phone?: string;
  preferred_contact?: string;
}

type Lead = Record<string, unknown> & { customer: Customer; consent?: Consent };

export function checkConditions(lead: Lead): SkillOutcome | undefined {
  const problems: ValidationProblem[] = [];
  const check = (field: 'vehicle_of_interest' | 'trade_in', allowed: string[]): void => {
    const condition = (lead[field] as { condition?: string } | undefined)?.condition;
    if (condition !== undefined && !allowed.includes(condition)) {
      problems.push({ instanceLocation: `/${field}/condition`, keyword: 'enum', error: `must be one of: ${allowed.join(', ')}` });
    }
  };
  check('vehicle_of_interest', SALE_CONDITIONS);
  check('trade_in', TRADE_IN_CONDITIONS);
  if (problems.length === 0) return undefined;
  return failure('INVALID_CONDITION', { message: `vehicle condition uses the wrong vocabulary (${problems.length} field${problems.length === 1 ? '' : 's'})`, errors: problems });
}

export function checkTestDriveVehicle(lead: Lead): SkillOutcome | undefined {
  const appointment = lead.appointment as { appointment_type?: string } | undefined;
  if (appointment?.appointment_type !== 'test_drive' || lead.vehicle_of_interest !== undefined) return undefined;
  return failure('MISSING_REQUIRED_FIELD', {
    message: 'A test_drive appointment needs a vehicle_of_interest.',
    errors: [{ instanceLocation: '/vehicle_of_interest', keyword: 'required', error: 'is required when appointment.appointment_type is test_drive' }],
  });
}

/** The channel the dealer will follow up on: the customer's preference, else whatever contact they gave. */
function followUpChannel(customer: Customer): string {
  return customer.preferred_contact ?? (customer.email !== undefined ? 'email' : 'phone');
}

export function checkConsent(lead: Lead, now: Date): SkillOutcome | undefined {
  const consent = lead.consent;
  if (consent === undefined) {
    return failure('CONTACT_CONSENT_REQUIRED', {
      message: "Customer details were sent without consent. Add a 'consent' block with scope ['lead_submission'].",
      details: { missing: 'consent', expected_scope: CONSENT_SCOPE },
    });
  }
  const problems: ValidationProblem[] = [];
  if (consent.scope.length !== 1 || consent.scope[0] !== CONSENT_SCOPE) {
    problems.push({ instanceLocation: '/consent/scope', keyword: 'const', error: `must be exactly ["${CONSENT_SCOPE}"]` });
  }
  if (Date.parse(consent.granted_at) > now.getTime() + CLOCK_SKEW_MS) {
    problems.push({ instanceLocation: '/consent/granted_at', keyword: 'maximum', error: 'is in the future' });
  }
  if (consent.consent_text.trim() === '') {
    problems.push({ instanceLocation: '/consent/consent_text', keyword: 'minLength', error: 'must not be empty' });
  }
  if (consent.expires_at !== undefined && Date.parse(consent.expires_at) <= now.getTime()) {
    problems.push({ instanceLocation: '/consent/expires_at', keyword: 'minimum', error: 'the consent has expired' });
  }
  if (problems.length > 0) {
    return failure('INVALID_CONSENT', { message: `The consent grant is unusable: ${problems.map((p) => `${p.instanceLocation} ${p.error}`).join('; ')}.`, errors: problems });
  }
  const channel = followUpChannel(lead.customer);
  if (!consent.allowed_channels.includes(channel)) {
    return failure('CONTACT_CONSENT_REQUIRED', {
      message: `Follow-up by ${channel} is not covered by consent.allowed_channels.`,
      details: { channel, allowed_channels: consent.allowed_channels },
    });
  }
  return undefined;
}
