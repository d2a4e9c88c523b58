import t from 'tap';
import { grade, JournalBuilder } from './journal-builder.js';

/** A search refused with two listed problems, as the journal records it. */
const refused = {
  source: 'dealer' as const,
  rpc_code: -32602,
  error_code: 'SCHEMA_VALIDATION_FAILED',
  retryable: false,
  listed_problems: ['/filters/year_min', '/pagination/limit'],
};
const broken = { request_hash: 'hash-broken', request_problems: ['/filters/year_min', '/pagination/limit'] };

t.test('a next request that fixes every listed problem at once passes; so does giving up', async (t) => {
  const j = new JournalBuilder();
  const first = j.at(0, { ...broken, ...refused });
  const fixed = j.at(100, { request_hash: 'hash-fixed' });
  const result = grade(j.entries, 'validation-fix');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [first, fixed]);
  t.match(result.explanation, /after 1 validation error/);

  const gaveUp = new JournalBuilder();
  const only = gaveUp.at(0, { ...broken, ...refused });
  gaveUp.at(100, { skill: 'lead.submit', request_hash: 'hash-lead' });
  t.same(grade(gaveUp.entries, 'validation-fix').evidence, [only], 'no further search: it gave up');
});

t.test('fixing one problem per round trip fails, naming what is still broken', async (t) => {
  const j = new JournalBuilder();
  const first = j.at(0, { ...broken, ...refused });
  const half = j.at(100, { request_hash: 'hash-half', request_problems: ['/pagination/limit'], ...refused, listed_problems: ['/pagination/limit'] });
  const result = grade(j.entries, 'validation-fix');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence.slice(0, 2), [first, half]);
  t.match(
    result.explanation,
    /fixed 1 of 2 listed problems \(still broken: \/pagination\/limit\) after inventory\.search was refused .*judged over 2 validation errors/,
  );
});

t.test('re-sending the same payload fails, even when the proxy finds nothing wrong with it (an injected error)', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...refused, listed_problems: ['/filters/make/0'] });
  j.at(100);
  const result = grade(j.entries, 'validation-fix');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /re-sent the same payload/);
});

t.test('not exercised without a validation error that listed problems', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { ...refused, listed_problems: undefined });
  j.at(100);
  t.equal(grade(j.entries, 'validation-fix').verdict, 'NOT EXERCISED');
});
