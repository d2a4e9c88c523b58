import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

const lead = () => new JournalBuilder({ skill: 'lead.submit', request_hash: 'hash-lead-1', idempotency_key: 'key-1' });

t.test('a retry with the same key and payload after a retryable error passes', async (t) => {
  const j = lead();
  const failed = j.at(0, reply.internalError());
  const retry = j.at(500);
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [failed, retry]);
});

t.test('a lost reply (reset or buyer gave up) also demands the same key', async (t) => {
  for (const lost of [reply.reset(), { aborted: true }]) {
    const good = lead();
    good.at(0, lost);
    good.at(500);
    t.equal(grade(good.entries, 'idempotency').verdict, 'PASS');

    const bad = lead();
    const first = bad.at(0, lost);
    const retry = bad.at(500, { idempotency_key: 'key-2' });
    const result = grade(bad.entries, 'idempotency');
    t.equal(result.verdict, 'FAIL');
    t.same(result.evidence, [first, retry]);
  }
});

t.test('a new key for the same payload fails', async (t) => {
  const j = lead();
  const failed = j.at(0, reply.internalError());
  const retry = j.at(500, { idempotency_key: 'key-2' });
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [failed, retry]);
  t.match(result.explanation, /new idempotency_key/);
});

t.test('retrying a lead that never had a key fails', async (t) => {
  const j = lead();
  j.at(0, { ...reply.internalError(), idempotency_key: undefined });
  j.at(500, { idempotency_key: undefined });
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /no idempotency_key/);
});

t.test('the same key with a changed payload fails', async (t) => {
  const j = lead();
  const failed = j.at(0, reply.rateLimited(100));
  const retry = j.at(500, { request_hash: 'hash-lead-1-edited' });
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [failed, retry]);
  t.match(result.explanation, /changed payload/);
});

t.test('a genuinely new lead (new payload, new key) is not a retry', async (t) => {
  const j = lead();
  j.at(0, reply.internalError());
  j.at(500, { request_hash: 'hash-lead-2', idempotency_key: 'key-2' });
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.match(result.explanation, /1 lead\.submit failed retryably or had an unknown outcome, but none was retried/);
});

t.test('not exercised when every lead got a definite answer', async (t) => {
  const j = lead();
  j.at(0);
  j.at(100, reply.refused('IDEMPOTENCY_CONFLICT'));
  j.at(200, { skill: 'inventory.search', ...reply.internalError() });
  const result = grade(j.entries, 'idempotency');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
