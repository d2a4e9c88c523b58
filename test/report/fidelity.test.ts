// Hand-built journals for the facts a journal line now carries (outcome, stream errors, profile,
// extension URI, client key) and for the rules that read them: PASS, FAIL and NOT EXERCISED each.
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { buildReport } from '../../src/report/report.js';
import { formatReport } from '../../src/report/format.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { CLIENT, grade, JournalBuilder, reply } from './journal-builder.js';

const unknown = (cause: JournalEntry['unknown_cause'], status = 200): Partial<JournalEntry> => ({ outcome: 'unknown', unknown_cause: cause, status });
const streamError = (): Partial<JournalEntry> => ({ ...reply.internalError(), outcome: 'error', status: 200, error_in_stream: true, source: 'dealer' });
const LEAD = { skill: 'lead.submit', request_hash: 'hash-lead' };

t.test('an error event inside a stream is an error every check sees: retried at once, backoff FAILs', async (t) => {
  const j = new JournalBuilder({ duration_ms: 5 });
  const ids = [j.at(0, streamError()), j.at(5, streamError()), j.at(10, streamError()), j.at(15, streamError())];
  const result = grade(j.entries, 'backoff');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, ids);
  t.match(
    result.explanation,
    /retried at once 3 times in 1 retry chain \(within 50 ms; first: inventory\.search after gaps of 0, 0, 0 ms\), judged over 3 retries/,
  );
});

t.test('backoff: every unknown outcome starts a chain; PASS when the retry waits, NOT EXERCISED for results', async (t) => {
  for (const cause of ['reset', 'hang', 'timeout', 'truncated', 'malformed_json', 'not_jsonrpc'] as const) {
    const j = new JournalBuilder({ duration_ms: 5 });
    j.at(0, unknown(cause, cause === 'not_jsonrpc' ? 502 : 0));
    j.at(5, unknown(cause, cause === 'not_jsonrpc' ? 502 : 0));
    j.at(10, unknown(cause, cause === 'not_jsonrpc' ? 502 : 0));
    t.equal(grade(j.entries, 'backoff').verdict, 'FAIL', `${cause}: retried at once`);
    const patient = new JournalBuilder({ duration_ms: 5 });
    patient.at(0, unknown(cause));
    patient.at(505, { outcome: 'result' });
    t.equal(grade(patient.entries, 'backoff').verdict, 'PASS', `${cause}: one patient retry`);
  }
  const fine = new JournalBuilder();
  fine.at(0, { outcome: 'result' });
  fine.at(10, { outcome: 'result' });
  t.equal(grade(fine.entries, 'backoff').verdict, 'NOT EXERCISED');
});

/** A chain of failed attempts with these waits between the end of one and the start of the next. */
function chain(waits: number[]): JournalEntry[] {
  const j = new JournalBuilder({ duration_ms: 5 });
  let at = 0;
  j.at(0, reply.internalError());
  for (const wait of waits) j.at((at += 5 + wait), reply.internalError());
  return j.entries;
}

t.test('backoff grades the trend: full and equal jitter PASS; zero and unbounded FAIL', async (t) => {
  // Full jitter, base 100 ms: each wait random in [0, 100·2^n), so one may be shorter than the last.
  t.equal(grade(chain([83, 41, 310, 122, 1420]), 'backoff').verdict, 'PASS', 'full jitter');
  // Equal jitter: half the cap plus a random half.
  t.equal(grade(chain([60, 150, 230, 610]), 'backoff').verdict, 'PASS', 'equal jitter');
  // One chain of four constant gaps is a falling order full jitter draws 1 time in 24: not evidence
  // enough on its own (backoff.test.ts fails it over several chains).
  t.equal(grade(chain([500, 503, 498, 501]), 'backoff').verdict, 'PASS', 'one chain of constant gaps');
  t.equal(grade(chain([0, 1, 0]), 'backoff').verdict, 'FAIL', 'zero gaps');
  t.match(grade(chain([10, 20, 40, 80, 160, 320, 640, 1280]), 'backoff').explanation, /8 times \(bound 5\)/, 'unbounded');
  t.equal(grade(chain([400, 10]), 'backoff').verdict, 'PASS', 'two gaps are too few to tell jitter from a trend');
});

t.test('backoff explanations print whole milliseconds', async (t) => {
  const j = new JournalBuilder({ duration_ms: 5.37 });
  j.at(0, reply.internalError());
  j.at(5, reply.internalError());
  j.at(11, reply.internalError());
  const result = grade(j.entries, 'backoff');
  t.equal(result.verdict, 'FAIL');
  t.match(result.explanation, /gaps of 0, 1 ms/);
  t.notMatch(result.explanation, /\d\.\d+ ms/);
});

t.test('idempotency: a new key after a malformed, non-JSON-RPC or reset reply FAILs; the same key PASSes', async (t) => {
  for (const [cause, status, words] of [
    ['malformed_json', 200, 'a reply that is not valid JSON'],
    ['not_jsonrpc', 502, 'a non-JSON-RPC reply \\(HTTP 502\\)'],
    ['reset', 0, 'a connection reset'],
    ['truncated', 200, 'a truncated reply'],
  ] as const) {
    const bad = new JournalBuilder();
    const lead = bad.at(0, { ...LEAD, idempotency_key: 'k-1', ...unknown(cause, status) });
    const retry = bad.at(500, { ...LEAD, idempotency_key: 'k-2' });
    const result = grade(bad.entries, 'idempotency');
    t.equal(result.verdict, 'FAIL', cause);
    t.same(result.evidence, [lead, retry]);
    t.match(result.explanation, new RegExp(`new idempotency_key after ${words}`));
    const good = new JournalBuilder();
    good.at(0, { ...LEAD, idempotency_key: 'k-1', ...unknown(cause, status) });
    good.at(500, { ...LEAD, idempotency_key: 'k-1' });
    t.equal(grade(good.entries, 'idempotency').verdict, 'PASS', `${cause}: same key`);
  }
  const answered = new JournalBuilder();
  answered.at(0, { ...LEAD, idempotency_key: 'k-1', outcome: 'result' });
  answered.at(500, { ...LEAD, idempotency_key: 'k-2' });
  t.equal(grade(answered.entries, 'idempotency').verdict, 'NOT EXERCISED', 'a lead that got its answer is not a retry');
});

t.test('activation: only the exact URI the -32008 named counts', async (t) => {
  const named = 'https://dealer.example/extensions/aap/v1.3-custom';
  const refusal = { ...reply.extensionRequired(), outcome: 'error' as const, required_extension: named, extension_uri: AAP_EXTENSION_URI_1_3 };
  const wrong = new JournalBuilder();
  const r = wrong.at(0, refusal);
  const next = wrong.at(100, { extensions: [AAP_EXTENSION_URI_1_3] });
  const failed = grade(wrong.entries, 'activation');
  t.equal(failed.verdict, 'FAIL', 'another AAP URI is not the one named');
  t.same(failed.evidence, [r, next]);
  t.match(failed.explanation, named);
  const right = new JournalBuilder();
  right.at(0, refusal);
  right.at(100, { extensions: [named] });
  t.equal(grade(right.entries, 'activation').verdict, 'PASS');
  t.equal(grade(wrong.entries, 'activation', { extensionUri: AAP_EXTENSION_URI_1_3 }).verdict, 'PASS', '--extension-uri overrides');
  const inForce = new JournalBuilder();
  inForce.at(0, { ...reply.extensionRequired(), extension_uri: AAP_EXTENSION_URI_1_3 });
  inForce.at(100, { extensions: ['https://autoagentprotocol.org/extensions/aap/v9'] });
  t.equal(grade(inForce.entries, 'activation').verdict, 'FAIL', 'without a named URI, the one in force on the line');
  const none = new JournalBuilder();
  none.at(0);
  t.equal(grade(none.entries, 'activation').verdict, 'NOT EXERCISED');
});

t.test('version: graded from the profile each line records; --profile overrides', async (t) => {
  const j = new JournalBuilder({ profile: '2.0' });
  j.at(0);
  const missing = j.at(10, { a2a_version: undefined });
  const result = grade(j.entries, 'version');
  t.equal(result.verdict, 'FAIL', 'no flag needed');
  t.same(result.evidence, [missing]);
  t.equal(grade(j.entries, 'version', { profile: '1.3' }).verdict, 'NOT EXERCISED', 'the flag wins');
  const ok = new JournalBuilder({ profile: '2.0' });
  ok.at(0);
  t.equal(grade(ok.entries, 'version').verdict, 'PASS');
  const v13 = new JournalBuilder({ profile: '1.3' });
  v13.at(0, { a2a_version: undefined });
  t.match(grade(v13.entries, 'version').explanation, /profile 1\.3 does not require/);
});

t.test('a request already in flight when the error went out is not a reaction', async (t) => {
  // Four parallel searches: the first is rate-limited after 40 ms, the other three were sent before.
  const j = new JournalBuilder({ duration_ms: 40 });
  j.at(0, reply.rateLimited(1000));
  j.at(1);
  j.at(2);
  j.at(3);
  t.equal(grade(j.entries, 'retry-after').verdict, 'PASS', 'retry-after');
  t.equal(grade(j.entries, 'no-storm').verdict, 'PASS', 'no-storm');
  j.at(45); // 5 ms after the reply, with three others in flight: it may have crossed the reply on the wire
  t.equal(grade(j.entries, 'retry-after').verdict, 'PASS', 'a request that may have crossed the reply is not judged');
  j.at(100); // sent well after the reply: a reaction, and early
  t.equal(grade(j.entries, 'retry-after').verdict, 'FAIL', 'a request sent after the reply still counts');
  t.equal(grade(j.entries, 'no-storm').verdict, 'FAIL');
  t.match(grade(j.entries, 'retry-after').explanation, /again after 100 ms against a 1000 ms hint/);

  // One request at a time: a prompt reaction counts, however prompt.
  const one = new JournalBuilder({ duration_ms: 40 });
  one.at(0, reply.rateLimited(1000));
  one.at(41);
  t.equal(grade(one.entries, 'retry-after').verdict, 'FAIL', 'a sequential buyer 1 ms after the reply');
});

t.test('the report says which client key it grouped by', async (t) => {
  const j = new JournalBuilder({ client_key: 'header:x-buyer-id' });
  j.at(0, { client: 'key:aaaaaaaaaaaa' });
  j.at(10, { client: 'key:bbbbbbbbbbbb' });
  const report = buildReport(j.entries);
  t.equal(report.client_key, 'header:x-buyer-id');
  t.same(report.clients, ['key:aaaaaaaaaaaa', 'key:bbbbbbbbbbbb']);
  t.match(formatReport(report), /Clients keyed by header:x-buyer-id/);
  const legacy = new JournalBuilder();
  legacy.at(0);
  t.equal(buildReport(legacy.entries).client_key, 'unknown');
  t.equal(buildReport([...j.entries, ...legacy.entries]).client_key, 'mixed');
  t.ok(CLIENT);
});
