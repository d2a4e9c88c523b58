// The checks across dealers (AAP-BUYER-101…103), on hand-built journals of one proxy in front of
// dealers a, b and c; and a one-dealer journal, which is graded exactly as before.
import t from 'tap';
import { buildReport } from '../../src/report/report.js';
import { DEFAULT_EXAM_CHECK_NAMES } from '../../src/report/checks/index.js';
import { JournalBuilder, grade, reply } from './journal-builder.js';

const search = (dealer: string) => ({ dealer, method: 'SendMessage' });
const lead = (dealer: string, idempotency_key: string, extra = {}) => ({
  dealer,
  method: 'SendMessage',
  skill: 'lead.submit',
  request_hash: 'hash-lead-ann-civic',
  idempotency_key,
  ...extra,
});

t.test('a one-dealer journal is not graded across dealers', async (t) => {
  const j = new JournalBuilder();
  j.at(0);
  t.same(
    buildReport(j.entries).checks.map((c) => c.check),
    [...DEFAULT_EXAM_CHECK_NAMES],
  );
});

t.test('isolation: a buyer that keeps calling a and b while c is throttled passes', async (t) => {
  const j = new JournalBuilder();
  let at = 0;
  const trigger = j.at(100, { ...search('c'), ...reply.rateLimited(1000) });
  for (; at < 2000; at += 50) {
    j.at(at, search('a'));
    j.at(at + 10, search('b'));
  }
  const r = grade(j.entries, 'isolation');
  t.equal(r.verdict, 'PASS', r.explanation);
  t.same(r.evidence, [trigger]);
  t.match(r.check, 'isolation');
});

t.test('isolation: a buyer that waits out c before calling a and b again fails', async (t) => {
  const j = new JournalBuilder();
  for (let at = 0; at < 300; at += 50) j.at(at, search('a'));
  const trigger = j.at(300, { ...search('c'), ...reply.rateLimited(1000) });
  j.at(1310, search('c'));
  for (let at = 1320; at < 1700; at += 50) j.at(at, search('a'));
  const r = grade(j.entries, 'isolation');
  t.equal(r.verdict, 'FAIL', r.explanation);
  t.equal(r.evidence[0], trigger);
  t.match(r.explanation, /while dealer c was in trouble/);
});

t.test('isolation is not exercised with one dealer called, or no trouble', async (t) => {
  const j = new JournalBuilder();
  j.at(0, search('a'));
  j.at(10, search('b'));
  t.equal(grade(j.entries, 'isolation').verdict, 'NOT EXERCISED');
});

t.test('no-duplicate-lead: the same lead to one dealer under two keys fails', async (t) => {
  const j = new JournalBuilder();
  const first = j.at(0, lead('a', 'k1'));
  const second = j.at(100, lead('a', 'k2'));
  const r = grade(j.entries, 'no-duplicate-lead');
  t.equal(r.verdict, 'FAIL');
  t.same(r.evidence, [first, second]);
  t.match(r.explanation, /two idempotency keys/);
  t.notMatch(r.explanation, /ann|civic/i, 'nothing of the customer is told');
});

t.test('no-duplicate-lead: a lost reply re-sent to another dealer fails; retried at the same dealer with the same key passes', async (t) => {
  const moved = new JournalBuilder();
  const lost = moved.at(0, { ...lead('a', 'k1'), ...reply.reset() });
  const elsewhere = moved.at(100, lead('b', 'k2'));
  const r = grade(moved.entries, 'no-duplicate-lead');
  t.equal(r.verdict, 'FAIL');
  t.same(r.evidence, [lost, elsewhere]);

  const retried = new JournalBuilder();
  retried.at(0, { ...lead('a', 'k1'), ...reply.reset() });
  retried.at(100, lead('a', 'k1'));
  t.equal(grade(retried.entries, 'no-duplicate-lead').verdict, 'PASS');

  // Two dealers asked on purpose (both before any loss) is the buyer's choice.
  const both = new JournalBuilder();
  both.at(0, lead('a', 'k1'));
  both.at(0, lead('b', 'k2'));
  t.equal(grade(both.entries, 'no-duplicate-lead').verdict, 'PASS');
});

t.test('slow-dealer: graded against slow_dealer_budget_ms, from the journal or the buyer run time', async (t) => {
  const j = new JournalBuilder();
  j.at(0, search('a'));
  j.at(0, search('b'));
  const slow = j.at(0, { ...search('c'), duration_ms: 3000, faults: [{ rule: 'c-slow', effect: 'delay' }] });
  const r = grade(j.entries, 'slow-dealer');
  t.equal(r.verdict, 'PASS', 'within the 10 s default');
  t.same(r.evidence, [slow]);
  const tight = grade(j.entries, 'slow-dealer', { thresholds: { slow_dealer_budget_ms: 1000 } });
  t.equal(tight.verdict, 'FAIL');
  t.match(tight.explanation, /3000 ms with c slow, over its budget of 1000 ms/);
  t.equal(grade(j.entries, 'slow-dealer', { thresholds: { slow_dealer_budget_ms: 1000 }, buyerRunMs: 900 }).verdict, 'PASS', 'the exam run time wins');

  const even = new JournalBuilder();
  even.at(0, search('a'));
  even.at(0, search('b'));
  t.equal(grade(even.entries, 'slow-dealer').verdict, 'NOT EXERCISED');
});
