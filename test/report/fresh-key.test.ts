import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

const lead = () => new JournalBuilder({ skill: 'lead.submit', request_hash: 'hash-lead-b', idempotency_key: 'key-1' });
const conflict = reply.refused('IDEMPOTENCY_CONFLICT');

t.test('a new key for the new lead after IDEMPOTENCY_CONFLICT passes; the original payload may still use its key', async (t) => {
  const j = lead();
  j.at(0, { request_hash: 'hash-lead-a' });
  const refused = j.at(100, conflict);
  j.at(300, { idempotency_key: 'key-2' });
  j.at(400, { request_hash: 'hash-lead-a' }); // the first lead again, same key and payload: idempotent
  const result = grade(j.entries, 'fresh-key');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [refused]);
});

t.test('the conflicting key sent again with the changed payload fails', async (t) => {
  const j = lead();
  j.at(0, { request_hash: 'hash-lead-a' });
  const refused = j.at(100, conflict);
  const again = j.at(300);
  const result = grade(j.entries, 'fresh-key');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [refused, again]);
  t.match(result.explanation, /1 with the same changed payload/);
});

t.test('after an injected conflict the key belongs to nothing the buyer sent: any reuse fails', async (t) => {
  const j = lead();
  j.at(0, conflict);
  j.at(300, { request_hash: 'hash-lead-c' });
  t.equal(grade(j.entries, 'fresh-key').verdict, 'FAIL');
});

t.test('not exercised without IDEMPOTENCY_CONFLICT; not applicable for a buyer that never submits a lead', async (t) => {
  const j = lead();
  j.at(0, reply.internalError());
  j.at(300);
  t.equal(grade(j.entries, 'fresh-key').verdict, 'NOT EXERCISED');
  const searches = new JournalBuilder();
  searches.at(0);
  const result = grade(searches.entries, 'fresh-key');
  t.equal(result.verdict, 'NOT APPLICABLE');
  t.match(result.explanation, /never called lead\.submit/);
});
