import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { grade, JournalBuilder, reply } from './journal-builder.js';

/** A retry chain: an error, then one attempt after each wait (ms after the previous reply). */
function chain(waits: number[], last: Partial<JournalEntry> = {}, first = reply.internalError()): { entries: JournalEntry[]; ids: string[] } {
  const j = new JournalBuilder({ duration_ms: 5 });
  const ids = [j.at(0, first)];
  let at = 0;
  waits.forEach((wait, i) => {
    at += 5 + wait;
    ids.push(j.at(at, i === waits.length - 1 ? last : reply.internalError()));
  });
  return { entries: j.entries, ids };
}

t.test('exponential backoff with jitter passes', async (t) => {
  const { entries, ids } = chain([100, 230, 390, 850]);
  const result = grade(entries, 'backoff');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, ids);
  // A busy machine can hold a buyer that means to retry at once: the PASS names the waits it rests on.
  t.match(result.explanation, /judged over 4 retries; waits 100–850 ms, median 230 ms, bound 5\)/);
});

t.test("the proxy's upstream-unreachable reply starts a chain too", async (t) => {
  const { entries } = chain([0, 0, 0], {}, reply.upstreamUnreachable());
  t.equal(grade(entries, 'backoff').verdict, 'FAIL');
});

/** `count` chains on different requests, one after another, each with the same waits. */
function chains(count: number, waits: number[]): JournalEntry[] {
  const j = new JournalBuilder({ duration_ms: 5 });
  let at = 0;
  for (let c = 0; c < count; c++) {
    const request_hash = `hash-${c}`;
    j.at(at, { ...reply.internalError(), request_hash });
    waits.forEach((wait, i) => {
      at += 5 + wait;
      j.at(at, i === waits.length - 1 ? { request_hash } : { ...reply.internalError(), request_hash });
    });
    at += 1000;
  }
  return j.entries;
}

t.test('retrying at once in three chains of one retry each fails; the explanation says what it rests on', async (t) => {
  const result = grade(chains(3, [1]), 'backoff');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /retried at once 3 times in 3 retry chains .* judged over 3 retries: full-jitter backoff waits this little/);
  t.equal(result.evidence.length, 6);
  t.equal(grade(chains(1, [1]), 'backoff').verdict, 'PASS', 'one immediate retry could be chance');
});

t.test('retrying at a fixed interval fails once the run shows it in several chains; one chain is not enough', async (t) => {
  const result = grade(chains(3, [100, 100, 110, 105]), 'backoff');
  t.equal(result.verdict, 'FAIL');
  t.match(
    result.explanation,
    /the waits did not grow exponentially in 3 retry chains \(e\.g\. inventory\.search: gaps 100, 100, 110, 105 ms\), judged over 12 retries/,
  );
  const one = chain([100, 100, 110]);
  t.equal(grade(one.entries, 'backoff').verdict, 'PASS', 'full jitter draws three such gaps now and then');
});

t.test('gaps that shrink fail over several chains; one short gap among growing ones (jitter) does not', async (t) => {
  t.equal(grade(chains(3, [800, 400, 200, 100]), 'backoff').verdict, 'FAIL');
  t.equal(grade(chain([400, 800, 100]).entries, 'backoff').verdict, 'PASS', 'full jitter may draw a short gap late');
});

t.test('more retries than the bound fails, and the bound is configurable', async (t) => {
  const { entries } = chain([100, 200, 400, 800, 1600, 3200]);
  const result = grade(entries, 'backoff');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /retried inventory\.search 6 times \(bound 5\)/);
  t.equal(grade(entries, 'backoff', { thresholds: { backoff_max_retries: 6 } }).verdict, 'PASS');
});

t.test('a chain ends when an attempt succeeds; a later, unrelated resend is not a retry', async (t) => {
  const j = new JournalBuilder();
  const failed = j.at(0, reply.internalError());
  const retried = j.at(300);
  j.at(310);
  j.at(320);
  const result = grade(j.entries, 'backoff');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [failed, retried]);
});

t.test('not exercised without a retryable INTERNAL_ERROR', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...reply.internalError(), retryable: false });
  j.at(10);
  j.at(30, reply.rateLimited(10));
  const result = grade(j.entries, 'backoff');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
