/**
 * The consent checks of lead.submit that the JSON Schema deliberately leaves open, each giving
 * its own AAP code, all problems at once. (The condition and test-drive rules are validation
 * stages: src/protocol/request-schemas.ts.)
 */
import type { ValidationProblem } from '../../protocol/envelopes.js';
import { failure, type SkillOutcome } from './skill-handler.js';

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
    return failure('INVALID_CONSENT', {
      message: `The consent grant is unusable: ${problems.map((p) => `${p.instanceLocation} ${p.error}`).join('; ')}.`,
      errors: problems,
    });
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
