/** The shopping trip the reference buyers make in tests and under `aap-chaos exam`. */
import type { ShoppingPlan } from './shopping-trip.js';
import { Inventory } from '../src/mock/inventory.js';

const lead = {
  customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', preferred_contact: 'email' },
  consent: {
    granted_at: '2024-01-01T10:00:00Z',
    allowed_channels: ['email'],
    consent_text: 'I agree to be contacted about this vehicle.',
    scope: ['lead_submission'],
  },
  source_agent: { name: 'reference-buyer', url: 'https://buyer.example' },
};

/** Seven searches: two more than rate-limit-storm allows per window, so its limit is met. */
export const examplePlan: ShoppingPlan = {
  searches: [{ make: ['Honda'] }, { make: ['Toyota'] }, { condition: ['used'] }, {}, { make: ['Ford'] }, { condition: ['new'] }, { body: ['suv'] }],
  rememberedVin: Inventory.fromSeed().firstSold().vin, // sold in the mock dealer's default inventory
  // The lead's free text is `message` in the AAP schema (`comments` was refused with SCHEMA_VALIDATION_FAILED).
  leads: [lead, { ...lead, message: 'Is it still available this weekend?' }],
};
