import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

t.test('one request per retry window passes', async (t) => {
  const j = new JournalBuilder();
  const first = j.at(0, reply.rateLimited(1000));
  j.at(1000);
  j.at(1010, { skill: 'dealer.information', request_hash: 'hash-info' }); // other skills are not limited by this hint
  const result = grade(j.entries, 'no-storm');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [first]);
});

t.test('a burst inside the window fails, with every extra request as evidence', async (t) => {
  const j = new JournalBuilder();
  const limited = j.at(0, reply.rateLimited(1000));
  const extras = [j.at(100), j.at(200), j.at(300)];
  j.at(400, { skill: 'dealer.information', request_hash: 'hash-info' });
  j.at(1000);
  const result = grade(j.entries, 'no-storm');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [limited, ...extras]);
  t.match(result.explanation, /3 extra requests for inventory\.search inside one 1000 ms retry window \(allowed 0\)/);
});

t.test('storm_tolerance allows that many extras per window', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(500);
  t.equal(grade(j.entries, 'no-storm').verdict, 'FAIL');
  t.equal(grade(j.entries, 'no-storm', { thresholds: { storm_tolerance: 1 } }).verdict, 'PASS');
});

t.test('not exercised without a RATE_LIMITED hint', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.internalError());
  j.at(1);
  const result = grade(j.entries, 'no-storm');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
