// The dealer's per-instance `retryable` wins over the code's table default in every check that reads
// a code. The seed: "retryable is a default, not a hard rule … Buyer agents MUST honor the value the
// dealer returns rather than the table default." A buyer that honours it is never failed for it.
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { grade, JournalBuilder, reply } from './journal-builder.js';

const invalid = (retryable: boolean): Partial<JournalEntry> => ({
  source: 'dealer',
  rpc_code: -32602,
  error_code: 'SCHEMA_VALIDATION_FAILED',
  retryable,
  listed_problems: ['/filters/year_min'],
  request_hash: 'hash-search',
});
const vehicle = { skill: 'inventory.vehicle', vehicle: 'VIN1', request_hash: 'hash-vin1' };
const unavailable = (retryable: boolean): Partial<JournalEntry> => ({ ...vehicle, rpc_code: -32000, error_code: 'VEHICLE_UNAVAILABLE', retryable });

t.test('the journal of the issue: SCHEMA_VALIDATION_FAILED with retryable: true, the same payload again after a backoff, passes', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { skill: 'dealer.information', request_hash: 'hash-info', rpc_code: -32603, error_code: 'INTERNAL_ERROR', retryable: false });
  j.at(20, invalid(true));
  j.at(233, invalid(true)); // +208 ms after the reply
  j.at(583, { request_hash: 'hash-search' }); // +345 ms: ok
  const fix = grade(j.entries, 'validation-fix');
  t.equal(fix.verdict, 'PASS', fix.explanation);
  t.equal(grade(j.entries, 'non-retryable').verdict, 'PASS', 'dealer.information was not sent again');
  const backoff = grade(j.entries, 'backoff');
  t.equal(backoff.verdict, 'PASS', 'the retries of the search are a backoff chain, and they backed off');
  t.match(backoff.explanation, /judged over 2 retries/);
});

t.test('with retryable: false the same payload again still fails validation-fix, and a changed one must fix every listed place', async (t) => {
  const j = new JournalBuilder();
  j.at(0, invalid(false));
  j.at(300, invalid(false));
  const result = grade(j.entries, 'validation-fix');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /re-sent the same payload after retryable: false/);

  const changed = new JournalBuilder();
  changed.at(0, invalid(true));
  changed.at(300, { request_hash: 'hash-other', request_problems: ['/filters/year_min'] });
  t.equal(grade(changed.entries, 'validation-fix').verdict, 'FAIL', 'retryable: true does not excuse a half fix');
});

t.test('VEHICLE_UNAVAILABLE with retryable: true: retrying the vehicle after a backoff passes sold-vehicle; backoff grades the waits', async (t) => {
  const j = new JournalBuilder();
  j.at(0, unavailable(true));
  j.at(200, unavailable(true));
  j.at(600, unavailable(true));
  j.at(1400, vehicle);
  const sold = grade(j.entries, 'sold-vehicle');
  t.equal(sold.verdict, 'PASS', sold.explanation);
  t.match(sold.explanation, /said retryable: true/);
  t.equal(grade(j.entries, 'backoff').verdict, 'PASS');
  t.equal(grade(j.entries, 'non-retryable').verdict, 'NOT EXERCISED');

  const hammered = new JournalBuilder();
  for (let i = 0; i < 4; i++) hammered.at(i * 7, unavailable(true));
  hammered.at(30, vehicle);
  t.equal(grade(hammered.entries, 'backoff').verdict, 'FAIL', 'retrying it at once is a backoff FAIL');

  const final = new JournalBuilder();
  for (let i = 0; i < 4; i++) final.at(i * 300, unavailable(false));
  t.equal(grade(final.entries, 'sold-vehicle').verdict, 'FAIL', 'with retryable: false the loop still fails');
});

t.test('INTERNAL_ERROR with retryable: false is final: resending it unchanged fails non-retryable, and it starts no backoff chain', async (t) => {
  const internalFinal = { rpc_code: -32603, error_code: 'INTERNAL_ERROR', retryable: false };
  const j = new JournalBuilder();
  j.at(0, internalFinal);
  j.at(300, internalFinal);
  j.at(900, {});
  t.equal(grade(j.entries, 'non-retryable').verdict, 'FAIL');
  t.equal(grade(j.entries, 'backoff').verdict, 'NOT EXERCISED');

  const gaveUp = new JournalBuilder();
  gaveUp.at(0, internalFinal);
  gaveUp.at(300, { skill: 'inventory.facets', request_hash: 'hash-facets' });
  t.equal(grade(gaveUp.entries, 'non-retryable').verdict, 'PASS', 'giving up on it is right');
});

t.test('a reply that carries no retryable falls back to the table default of its code', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...vehicle, rpc_code: -32000, error_code: 'VEHICLE_UNAVAILABLE' });
  j.at(300, vehicle);
  t.equal(grade(j.entries, 'non-retryable').verdict, 'FAIL', 'VEHICLE_UNAVAILABLE defaults to not retryable');

  const lead = { skill: 'lead.submit', request_hash: 'hash-lead' };
  const leads = new JournalBuilder();
  leads.at(0, { ...lead, idempotency_key: 'k1', rpc_code: -32603, error_code: 'INTERNAL_ERROR' });
  leads.at(400, { ...lead, idempotency_key: 'k2' });
  t.equal(grade(leads.entries, 'idempotency').verdict, 'FAIL', 'INTERNAL_ERROR defaults to retryable, so the retry needs its key');

  const a2a = new JournalBuilder();
  a2a.at(0, reply.extensionRequired());
  a2a.at(5, reply.extensionRequired());
  t.equal(grade(a2a.entries, 'non-retryable').verdict, 'NOT EXERCISED', 'an A2A error has no AAP code and so no default');
});

t.test('IDEMPOTENCY_CONFLICT with retryable: true invites the same request again; another payload under the key still fails', async (t) => {
  const lead = { skill: 'lead.submit', idempotency_key: 'k1' };
  const conflict = { ...lead, request_hash: 'hash-b', rpc_code: -32000, error_code: 'IDEMPOTENCY_CONFLICT', retryable: true };
  const j = new JournalBuilder();
  j.at(0, { ...lead, request_hash: 'hash-a' });
  j.at(100, conflict);
  j.at(500, { ...lead, request_hash: 'hash-b' });
  t.equal(grade(j.entries, 'fresh-key').verdict, 'PASS', grade(j.entries, 'fresh-key').explanation);

  const other = new JournalBuilder();
  other.at(0, { ...lead, request_hash: 'hash-a' });
  other.at(100, conflict);
  other.at(500, { ...lead, request_hash: 'hash-c' });
  t.equal(grade(other.entries, 'fresh-key').verdict, 'FAIL');
});

t.test('RATE_LIMITED with retryable: false keeps its hint: the rate still binds retry-after and no-storm', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...reply.rateLimited(1000), retryable: false });
  j.at(100, { request_hash: 'hash-other' });
  j.at(200, { request_hash: 'hash-third' });
  t.equal(grade(j.entries, 'retry-after').verdict, 'FAIL');
  t.equal(grade(j.entries, 'no-storm').verdict, 'FAIL');
  t.equal(grade(j.entries, 'non-retryable').verdict, 'PASS', 'it never sent the refused request again');
});
