import t, { type Test } from 'tap';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, BAD_REQUEST_TYPE } from '../../src/protocol/codes.js';
import { createBuyer, sendSkill, type SkillReply } from '../helpers/sdk-buyer.js';
import { aapError, expectAapError, payload, startDealer } from './dealer-fixture.js';

// The dealer's clock is pinned to a Monday noon UTC so opening hours (America/Chicago, UTC-6 in January) are predictable.
const NOW = new Date('2030-01-07T12:00:00Z');
const WEDNESDAY_11_LOCAL = '2030-01-09T17:00:00Z';
const SUNDAY_11_LOCAL = '2030-01-13T17:00:00Z';

const consent = {
  granted_at: '2030-01-06T10:00:00Z',
  allowed_channels: ['email', 'phone'],
  consent_text: 'I agree to be contacted about this vehicle.',
  scope: ['lead_submission'],
};
const baseLead = {
  customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+15555550123', preferred_contact: 'email' },
  consent,
  source_agent: { name: 'test-buyer', url: 'https://buyer.example' },
};

interface LeadResponse {
  lead_id: string;
  status: string;
  appointment?: { appointment_id: string; status: string; confirmed_at?: string; proposed_times?: string[] };
  dealer?: { name: string; phone: string };
}

async function leadDealer(
  t: Test,
  profile: '1.3' | '2.0' = '1.3',
): Promise<{ submit: (lead: Record<string, unknown>) => Promise<SkillReply>; firstAvailable: () => { vin: string; rooftop: string }; soldVin: string }> {
  const { url, dealer } = await startDealer(t, { profile, now: () => NOW });
  const buyer = await createBuyer(url);
  const extensionUri = profile === '1.3' ? AAP_EXTENSION_URI_1_3 : AAP_EXTENSION_URI_2_0_DRAFT;
  return {
    submit: (lead) => sendSkill(buyer, 'lead.submit', lead, { extensionUri }),
    firstAvailable: () => dealer.inventory.firstAvailable(),
    soldVin: dealer.inventory.firstSold().vin,
  };
}

t.test('a consented lead is received with a lead id and the rooftop contact', async (t) => {
  const { submit } = await leadDealer(t);
  const lead = payload<LeadResponse>(t, await submit(baseLead), 'lead.submit');
  t.match(lead, { lead_id: /^lead_/, status: 'received', dealer: { name: 'Mock Motors Downtown', phone: '+15555550100' } });
});

t.test('consent errors', async (t) => {
  const { submit } = await leadDealer(t);
  const expectCode = async (t: Test, lead: Record<string, unknown>, code: string, rpc = -32000): Promise<Record<string, unknown>> =>
    expectAapError(t, await submit(lead), rpc, code);

  t.test('customer details without consent are CONTACT_CONSENT_REQUIRED', async (t) => {
    const error = await expectCode(t, { customer: baseLead.customer, source_agent: baseLead.source_agent }, 'CONTACT_CONSENT_REQUIRED');
    t.match(error.details, { missing: 'consent', expected_scope: 'lead_submission' });
  });

  t.test('a follow-up channel outside allowed_channels is CONTACT_CONSENT_REQUIRED', async (t) => {
    const error = await expectCode(t, { ...baseLead, customer: { ...baseLead.customer, preferred_contact: 'sms' } }, 'CONTACT_CONSENT_REQUIRED');
    t.match(error.details, { channel: 'sms' });
  });

  t.test('wrong scope, a future grant and empty text are INVALID_CONSENT, all listed', async (t) => {
    const error = await expectCode(
      t,
      { ...baseLead, consent: { ...consent, scope: ['lead_submission', 'marketing'], granted_at: '2030-02-01T00:00:00Z', consent_text: ' ' } },
      'INVALID_CONSENT',
    );
    const where = (error.details as { errors: { instanceLocation: string }[] }).errors.map((e) => e.instanceLocation);
    t.same(where, ['/consent/scope', '/consent/granted_at', '/consent/consent_text']);
  });

  t.test('an expired consent is INVALID_CONSENT', async (t) => {
    await expectCode(t, { ...baseLead, consent: { ...consent, expires_at: '2030-01-07T11:00:00Z' } }, 'INVALID_CONSENT');
  });

  t.test('a trade-in word on the vehicle of interest (and vice versa) is INVALID_CONDITION on -32602', async (t) => {
    const error = await expectCode(
      t,
      { ...baseLead, vehicle_of_interest: { make: 'Honda', condition: 'excellent' }, trade_in: { make: 'Ford', condition: 'used' } },
      'INVALID_CONDITION',
      -32602,
    );
    t.same(
      (error.details as { errors: { instanceLocation: string }[] }).errors.map((e) => e.instanceLocation),
      ['/vehicle_of_interest/condition', '/trade_in/condition'],
    );
  });

  t.test('a test drive without a vehicle is MISSING_REQUIRED_FIELD on -32602', async (t) => {
    const error = await expectCode(
      t,
      { ...baseLead, appointment: { appointment_type: 'test_drive', appointment_at: WEDNESDAY_11_LOCAL } },
      'MISSING_REQUIRED_FIELD',
      -32602,
    );
    t.match(error.details, { errors: [{ instanceLocation: '/vehicle_of_interest', keyword: 'required' }] });
  });

  t.test('a structurally broken lead is SCHEMA_VALIDATION_FAILED with every problem', async (t) => {
    const error = await expectCode(
      t,
      { customer: { first_name: 'A', phone: '555' }, consent: { ...consent, allowed_channels: [] } },
      'SCHEMA_VALIDATION_FAILED',
      -32602,
    );
    const where = (error.details as { errors: { instanceLocation: string }[] }).errors.map((e) => e.instanceLocation).sort();
    t.same(where, ['/consent/allowed_channels', '/customer/last_name', '/customer/phone', '/source_agent']);
  });
});

t.test('a lead about a sold or unknown vehicle is refused', async (t) => {
  const { submit, soldVin } = await leadDealer(t);
  t.equal(aapError(await submit({ ...baseLead, vehicle_of_interest: { vin: soldVin } })).code, 'VEHICLE_UNAVAILABLE');
  t.equal(aapError(await submit({ ...baseLead, vehicle_of_interest: { vin: '1HGCM82633A00000X' } })).code, 'VEHICLE_NOT_FOUND');
});

t.test('idempotency keys', async (t) => {
  const { submit } = await leadDealer(t);
  const lead = { ...baseLead, idempotency_key: 'lead-key-1', appointment: { appointment_type: 'sales', appointment_at: WEDNESDAY_11_LOCAL } };
  const first = payload<LeadResponse>(t, await submit(lead), 'lead.submit');
  t.equal(first.status, 'received');

  t.test('the same key and payload return the original lead as duplicate', async (t) => {
    const again = payload<LeadResponse>(t, await submit({ ...lead, customer: { ...lead.customer } }), 'lead.submit');
    t.equal(again.status, 'duplicate');
    t.equal(again.lead_id, first.lead_id);
    t.same(again.appointment, first.appointment, 'the retry does not find its own slot taken');
  });

  t.test('the same key with another payload is IDEMPOTENCY_CONFLICT', async (t) => {
    const reply = await submit({ ...lead, message: 'changed my mind' });
    t.match(expectAapError(t, reply, -32000, 'IDEMPOTENCY_CONFLICT'), { retryable: false, details: { original_lead_id: first.lead_id } });
  });
});

t.test('appointments', async (t) => {
  const { submit, firstAvailable } = await leadDealer(t);
  const book = async (at: string, extra: Record<string, unknown> = {}): Promise<LeadResponse> =>
    payload<LeadResponse>(t, await submit({ ...baseLead, ...extra, appointment: { appointment_type: 'sales', appointment_at: at } }), 'lead.submit');

  t.test('inside opening hours and free: confirmed', async (t) => {
    const lead = await book(WEDNESDAY_11_LOCAL);
    t.match(lead.appointment, { appointment_id: /^appt_/, status: 'confirmed', confirmed_at: WEDNESDAY_11_LOCAL });
    t.notOk(lead.appointment && 'proposed_times' in lead.appointment);
  });

  t.test('a slot an earlier lead booked: proposed, with the next free times', async (t) => {
    const lead = await book(WEDNESDAY_11_LOCAL);
    t.equal(lead.status, 'received', 'the lead itself is still received');
    t.same(lead.appointment?.status, 'proposed');
    t.same(lead.appointment?.proposed_times, ['2030-01-09T18:00:00Z', '2030-01-09T18:30:00Z', '2030-01-09T19:00:00Z']);
    t.notOk(lead.appointment && 'confirmed_at' in lead.appointment);
  });

  t.test('a day the rooftop is closed: proposed from the next opening', async (t) => {
    const lead = await book(SUNDAY_11_LOCAL);
    t.equal(lead.appointment?.status, 'proposed');
    t.equal(lead.appointment?.proposed_times?.[0], '2030-01-14T15:00:00Z', 'Monday 09:00 in Chicago');
  });

  t.test('hours follow the rooftop of the vehicle of interest', async (t) => {
    const v = firstAvailable();
    const lead = await book(SUNDAY_11_LOCAL.replace('17:00', '19:00'), { vehicle_of_interest: { vin: v.vin } });
    t.equal(lead.appointment?.status, v.rooftop === 'Mock Motors North' ? 'confirmed' : 'proposed', `${v.rooftop} hours apply`);
  });

  t.test('beyond the booking horizon: proposed times before it, not APPOINTMENT_TIME_UNAVAILABLE', async (t) => {
    const lead = await book('2031-06-04T17:00:00Z');
    t.equal(lead.appointment?.status, 'proposed');
    const horizon = NOW.getTime() + 90 * 24 * 3600_000;
    t.ok(
      lead.appointment?.proposed_times?.length &&
        lead.appointment.proposed_times.every((p) => Date.parse(p) <= horizon && Date.parse(p) > horizon - 14 * 24 * 3600_000),
      'in the last days of the horizon',
    );
  });

  t.test('no requested time: the appointment is requested', async (t) => {
    const lead = payload<LeadResponse>(t, await submit({ ...baseLead, appointment: { appointment_type: 'trade_in' } }), 'lead.submit');
    t.equal(lead.appointment?.status, 'requested');
  });
});

t.test('2.0 profile: lead errors use the array envelope, with BadRequest for validation codes', async (t) => {
  const { submit } = await leadDealer(t, '2.0');
  const condition = await submit({ ...baseLead, trade_in: { condition: 'new' } });
  t.ok(!condition.ok && Array.isArray(condition.data));
  t.ok(!condition.ok && (condition.data as Record<string, unknown>[]).some((d) => d['@type'] === BAD_REQUEST_TYPE));
  const consentReply = await submit({ customer: baseLead.customer, source_agent: baseLead.source_agent });
  t.ok(!consentReply.ok && (consentReply.data as Record<string, unknown>[]).every((d) => d['@type'] !== BAD_REQUEST_TYPE));
  t.equal(aapError(consentReply).code, 'CONTACT_CONSENT_REQUIRED');
});
