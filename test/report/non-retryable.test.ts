import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

t.test('resending a refused request unchanged fails', async (t) => {
  const j = new JournalBuilder();
  const refused = j.at(0, reply.refused('SCHEMA_VALIDATION_FAILED'));
  const again = j.at(500, reply.refused('SCHEMA_VALIDATION_FAILED'));
  const third = j.at(900);
  const result = grade(j.entries, 'non-retryable');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [refused, again, third], 'every resend is graded against the first refusal');
  t.match(result.explanation, /resent 2 requests unchanged .*inventory\.search after SCHEMA_VALIDATION_FAILED/);
});

t.test('a corrected payload, corrected headers or a fresh idempotency key is a changed request', async (t) => {
  const payload = new JournalBuilder();
  const refused = payload.at(0, reply.refused('SCHEMA_VALIDATION_FAILED'));
  payload.at(100, { request_hash: 'hash-search-fixed' });
  const result = grade(payload.entries, 'non-retryable');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [refused]);

  const headers = new JournalBuilder();
  headers.at(0, { ...reply.extensionRequired(), retryable: false });
  headers.at(100, { extensions: ['https://autoagentprotocol.org/extensions/aap/v1.3'] });
  t.equal(grade(headers.entries, 'non-retryable').verdict, 'PASS');

  const key = new JournalBuilder({ skill: 'lead.submit', request_hash: 'hash-lead' });
  key.at(0, { idempotency_key: 'k1', ...reply.refused('IDEMPOTENCY_CONFLICT') });
  key.at(100, { idempotency_key: 'k2' });
  t.equal(grade(key.entries, 'non-retryable').verdict, 'PASS');
});

t.test('the retryable value on the wire decides, not the code', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...reply.internalError(), retryable: false });
  j.at(100);
  t.equal(grade(j.entries, 'non-retryable').verdict, 'FAIL');
});

t.test('not exercised when no non-retryable error reached the buyer', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.internalError());
  j.at(100);
  j.at(200, { ...reply.refused('VEHICLE_NOT_FOUND'), status: 0 }); // never arrived
  j.at(300);
  j.at(400, { ...reply.refused('INVALID_PARAMS'), method: 'GetTask', skill: undefined, request_hash: undefined });
  j.at(500, { method: 'GetTask', skill: undefined, request_hash: undefined });
  const result = grade(j.entries, 'non-retryable');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
