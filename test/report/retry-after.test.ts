import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

t.test('a buyer that waits out the hint passes', async (t) => {
  const j = new JournalBuilder();
  const limited = j.at(0, reply.rateLimited(1000));
  const retry = j.at(1000);
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [limited, retry]);
});

t.test('a PASS names its closest return, so a reader sees the margin', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(1400);
  j.at(2000, reply.rateLimited(500));
  j.at(2520); // 20 ms to spare, against 400 above
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'PASS');
  t.equal(
    result.explanation,
    'waited out every retry hint (2 RATE_LIMITED replies, tolerance 50 ms; closest: inventory.search again after 520 ms against a 500 ms hint)',
  );
  const never = new JournalBuilder();
  never.at(0, reply.rateLimited(1000));
  t.equal(grade(never.entries, 'retry-after').explanation, 'waited out every retry hint (1 RATE_LIMITED reply, tolerance 50 ms)', 'no return, no margin');
});

t.test('coming back inside the tolerance still passes, just outside it fails', async (t) => {
  const inside = new JournalBuilder();
  inside.at(0, reply.rateLimited(1000));
  inside.at(955);
  t.equal(grade(inside.entries, 'retry-after').verdict, 'PASS');

  const outside = new JournalBuilder();
  outside.at(0, reply.rateLimited(1000));
  outside.at(940);
  t.equal(grade(outside.entries, 'retry-after').verdict, 'FAIL');
  t.equal(grade(outside.entries, 'retry-after', { thresholds: { retry_after_tolerance_ms: 100 } }).verdict, 'PASS', 'the tolerance is configurable');
});

t.test('a buyer that retries before the hint fails, with the early retry as evidence', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(2000)); // a first, honoured hint
  j.at(2100);
  const limited = j.at(3000, reply.rateLimited(1000));
  const early = j.at(3200);
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [limited, early]);
  t.match(result.explanation, /1 of 2 RATE_LIMITED replies: inventory\.search again after 200 ms against a 1000 ms hint/);
});

t.test('only the next request for the same skill is timed', async (t) => {
  const j = new JournalBuilder();
  const limited = j.at(0, reply.rateLimited(1000));
  j.at(100, { skill: 'dealer.information', request_hash: 'hash-info' });
  const retry = j.at(1200);
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [limited, retry]);
});

t.test('another client coming in early does not count against this one', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(100, { client: 'buyer-b' });
  t.equal(grade(j.entries, 'retry-after').verdict, 'PASS');
});

t.test('a buyer that never comes back honoured the hint', async (t) => {
  const j = new JournalBuilder();
  const limited = j.at(0, reply.rateLimited(1000));
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [limited]);
});

t.test('not exercised without a RATE_LIMITED reply that carried a hint and reached the buyer', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...reply.rateLimited(1000), retry_after_ms: undefined });
  j.at(10, { ...reply.rateLimited(1000), status: 0 });
  j.at(20);
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
  t.match(result.explanation, /no RATE_LIMITED reply with a retry hint/);
});

t.test('a one-at-a-time buyer answering within the millisecond a reply ended is read as answering (CI: the exam-shrink flaw passed)', async (t) => {
  // Start times are whole milliseconds and durations are not: a request that arrived 0.1 ms after
  // the one before it ended shares that request's millisecond and seems to start before its end.
  // Read as two requests in flight, that made the resend at once (and every search after it inside
  // the crossing window) a possible crossing, so the buyer seemed never to come back: PASS.
  const j = new JournalBuilder();
  j.at(0, { duration_ms: 3.6 }); // ends at 3.6
  const limited = j.at(3, { ...reply.rateLimited(300), duration_ms: 0.8 }); // arrived at 3.7, ends at 3.8
  const atOnce = j.at(3, { duration_ms: 0.5 }); // arrived at 3.9
  for (let at = 4; at < 12; at++) j.at(at, { duration_ms: 0.5 }); // the buyer's next searches, fast
  const result = grade(j.entries, 'retry-after');
  t.equal(result.verdict, 'FAIL', result.explanation);
  t.same(result.evidence, [limited, atOnce]);
});
