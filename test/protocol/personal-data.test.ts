// What a recording may keep of a request: lead.submit's customer as stable pseudonyms that still
// pass the request schema, secrets dropped wherever they are, and the reply scrubbed to match.
import t from 'tap';
import { pseudonym, scrubReply, scrubSkillData } from '../../src/protocol/personal-data.js';
import { validateSkillRequest } from '../../src/protocol/request-schemas.js';
import { canonicalHash } from '../../src/protocol/volatile-fields.js';

const lead = {
  type: 'lead.submit.request',
  customer: {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@navy.example',
    phone: '+15555550199',
    preferred_contact: 'phone',
    address: { line1: '1 Harbor Rd', city: 'Arlington', region: 'VA', country: 'US' },
  },
  source_agent: { name: 'buyer', api_key: 'sk-live-123' },
  idempotency_key: 'k-1',
};

t.test('the customer becomes stable pseudonyms that still pass the lead.submit schema', async (t) => {
  const { data, replaced } = scrubSkillData('lead.submit', lead);
  const text = JSON.stringify(data);
  for (const personal of ['Grace', 'Hopper', 'grace@navy.example', '+15555550199', '1 Harbor Rd', 'Arlington', 'sk-live-123'])
    t.notOk(text.includes(personal), `no ${personal}`);
  const extra = scrubSkillData('lead.submit', { ...lead, customer: { name: 'Grace Hopper', contact: { mobile: '+15555550100' } } }).data as any;
  t.notMatch(JSON.stringify(extra), /Grace|Hopper|5555550100/, 'members a buyer adds under customer are pseudonymized too');
  t.match(data, {
    customer: { preferred_contact: 'phone', address: { region: 'VA', country: 'US' } },
    source_agent: { name: 'buyer' },
    idempotency_key: 'k-1',
  });
  t.notOk('api_key' in (data as any).source_agent, 'a secret is dropped, not masked');
  t.same(validateSkillRequest('lead.submit', data), [], 'still a valid lead.submit request');
  t.same(scrubSkillData('lead.submit', lead).data, data, 'the same person, the same pseudonyms');
  t.not(pseudonym('email', 'someone.else@navy.example'), (data as any).customer.email, 'another person, another pseudonym');
  t.equal(pseudonym('email', ' Grace@Navy.example '), (data as any).customer.email, 'case and spaces do not make another person');
  const reply = scrubReply({ lead_id: 'l-1', echo: { email: 'grace@navy.example', note: 'call Grace Hopper' }, token: 'x' }, replaced);
  t.same(
    reply,
    { lead_id: 'l-1', echo: { email: (data as any).customer.email, note: `call ${(data as any).customer.first_name} ${(data as any).customer.last_name}` } },
    'the reply gets the same pseudonyms, its secrets dropped',
  );
});

t.test('other skills keep their data, secrets aside', async (t) => {
  const search = { type: 'inventory.search.request', filters: { make: ['Honda'] }, auth: { password: 'hunter2' } };
  t.same(scrubSkillData('inventory.search', search).data, { type: 'inventory.search.request', filters: { make: ['Honda'] }, auth: {} });
});

t.test('the canonical hash looks past ids, timestamps and ignored pointers, not past content', async (t) => {
  const a = {
    type: 'lead.submit.request',
    idempotency_key: 'a',
    submitted_at: '2030-01-01T00:00:00Z',
    consent: { granted_at: '2030-01-01T00:00:00Z', scope: ['x'] },
    vehicle_of_interest: { vin: 'V1' },
  };
  const b = { ...a, idempotency_key: 'b', submitted_at: '2031-01-01T00:00:00Z', consent: { granted_at: '2031-01-01T00:00:00Z', scope: ['x'] } };
  t.equal(canonicalHash(a), canonicalHash(b));
  t.not(canonicalHash(a), canonicalHash({ ...a, vehicle_of_interest: { vin: 'V2' } }));
  t.equal(canonicalHash(a, ['/vehicle_of_interest']), canonicalHash({ ...a, vehicle_of_interest: { vin: 'V2' } }, ['/vehicle_of_interest']));
  t.equal(canonicalHash({ x: 1, y: 2 }), canonicalHash({ y: 2, x: 1 }), 'key order does not count');
});

t.test('a name is replaced where it stands as a word, not inside other words', async (t) => {
  const { data, replaced } = scrubSkillData('lead.submit', { ...lead, customer: { ...lead.customer, first_name: 'Al' } });
  const alias = (data as any).customer.first_name;
  t.same(scrubReply({ note: 'Al asked about All-wheel drive (Al.)' }, replaced), { note: `${alias} asked about All-wheel drive (${alias}.)` });
});
