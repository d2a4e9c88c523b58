import t from 'tap';
import { grade, JournalBuilder } from './journal-builder.js';

t.test('under 2.0, every request with A2A-Version: 1.0 passes', async (t) => {
  const j = new JournalBuilder();
  const ids = [j.at(0), j.at(10, { skill: 'lead.submit', request_hash: 'hash-lead' })];
  j.at(20, { method: undefined, skill: undefined, http_method: 'GET', path: '/.well-known/agent-card.json', a2a_version: undefined });
  const result = grade(j.entries, 'version', { profile: '2.0' });
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, ids, 'the agent-card fetch is not graded');
});

t.test('under 2.0, a missing, empty or other version fails', async (t) => {
  const j = new JournalBuilder();
  j.at(0);
  const missing = j.at(10, { a2a_version: undefined });
  const empty = j.at(20, { a2a_version: '' });
  const old = j.at(30, { a2a_version: '0.3' });
  const result = grade(j.entries, 'version', { profile: '2.0' });
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [missing, empty, old]);
  t.match(result.explanation, /3 of 4 requests under profile 2.0 lacked A2A-Version: 1\.0 \(the first had no header\)/);
});

t.test('not exercised under 1.3 or when the profile is unknown', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { a2a_version: undefined });
  const v13 = grade(j.entries, 'version', { profile: '1.3' });
  t.equal(v13.verdict, 'NOT EXERCISED');
  t.same(v13.evidence, []);
  const unknown = grade(j.entries, 'version');
  t.equal(unknown.verdict, 'NOT EXERCISED');
  t.match(unknown.explanation, /profile not given/);
});
