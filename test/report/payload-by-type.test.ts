// payload-by-type is graded from a pair of runs: the same faults with and without untidy envelopes.
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { buildReport } from '../../src/report/report.js';
import { gradeUntidyTwins, withUntidyTwins } from '../../src/exam/differential.js';
import { gradeRun, type ExamRun } from '../../src/exam/scorecard.js';
import type { BuyerRun } from '../../src/exam/buyer-process.js';
import { grade, JournalBuilder, reply } from './journal-builder.js';

const buyer: BuyerRun = { exitCode: 0, signal: null, timedOut: false, durationMs: 1000, stdout: '', stderr: '' };
const battery = withUntidyTwins([{ ref: 'lead-recovery', name: 'lead-recovery', scenario: { scenario: 'lead-recovery', rules: [] } }]);
const untidied = { faults: [{ rule: 'untidy-envelopes', effect: 'envelope' }] };

/** A buyer that meets one retryable INTERNAL_ERROR on a vehicle; `retries` says whether it tried again. */
function journal(retries: boolean, untidy: boolean): JournalEntry[] {
  const j = new JournalBuilder();
  j.at(0);
  j.at(100, { skill: 'inventory.vehicle', request_hash: 'hash-vehicle', ...reply.internalError(), ...(untidy ? untidied : {}) });
  if (retries) j.at(400, { skill: 'inventory.vehicle', request_hash: 'hash-vehicle' });
  j.at(800, { skill: 'lead.submit', request_hash: 'hash-lead' });
  return j.entries;
}

function pair(base: JournalEntry[], twin: JournalEntry[]): ExamRun {
  const runs = [
    gradeRun('lead-recovery', 42, 0, buyer, buildReport(base), base, false),
    gradeRun('lead-recovery+untidy-envelopes', 42, 0, buyer, buildReport(twin), twin, false),
  ];
  gradeUntidyTwins(battery, runs);
  return runs[1]!;
}

t.test('the battery gets an untidy twin of lead-recovery: the same rules behind an envelope rule', async (t) => {
  t.same(
    battery.map((b) => b.name),
    ['lead-recovery', 'lead-recovery+untidy-envelopes'],
  );
  t.same(battery[1]!.scenario.rules![0], { id: 'untidy-envelopes', envelope: { shuffle: true, unknown_detail: true } });
});

t.test('the same reactions and verdicts with untidy envelopes: PASS', async (t) => {
  const twin = pair(journal(true, false), journal(true, true));
  t.equal(twin.verdicts['payload-by-type'], 'PASS');
  t.match(twin.explanations['payload-by-type'], /the same reactions to 1 errors \(1 of them shuffled and padded\)/);
});

t.test('a buyer that gives up once the payload is not where it looked: FAIL, saying how it reacted', async (t) => {
  const untidy = journal(false, true);
  const twin = pair(journal(true, false), untidy);
  t.equal(twin.verdicts['payload-by-type'], 'FAIL');
  t.equal(twin.ok, false);
  t.match(
    twin.explanations['payload-by-type'],
    /reacted to inventory\.vehicle INTERNAL_ERROR differently: it did not send it again, where with tidy envelopes it sent the same request again/,
  );
  t.same(twin.evidence['payload-by-type'], [untidy[1]!.id]);
});

/** lead-recovery's shape: a refused search, a lead conflict, as one buyer meets them; `vary` changes what a real buyer changes from run to run. */
function recovery(untidy: boolean, vary: { lead?: string; key?: string; order?: boolean; giveUp?: boolean } = {}): JournalEntry[] {
  const j = new JournalBuilder();
  const mark = untidy ? untidied : {};
  const listed = ['/filters/year_min', '/pagination/limit'];
  const searches = [{ request_hash: 'hash-a' }, { request_hash: 'hash-b' }];
  for (const [i, s] of (vary.order ? searches.reverse() : searches).entries()) j.at(i, s); // two independent searches in flight
  j.at(50, { request_hash: 'hash-bad', ...reply.refused('SCHEMA_VALIDATION_FAILED'), rpc_code: -32602, listed_problems: listed, ...mark });
  if (!vary.giveUp) j.at(300, { request_hash: 'hash-good' });
  // The lead's payload hash and keys differ from run to run: a consent time from the clock, fresh UUID keys.
  const lead = { skill: 'lead.submit', request_hash: vary.lead ?? 'hash-lead-1' };
  j.at(600, { ...lead, idempotency_key: 'k-1' });
  j.at(700, { ...lead, idempotency_key: vary.key ?? 'k-2', ...reply.refused('IDEMPOTENCY_CONFLICT'), ...mark });
  j.at(900, { ...lead, idempotency_key: `${vary.key ?? 'k-2'}-fresh` });
  return j.entries;
}

t.test('clock timestamps, fresh keys and the order of concurrent requests change bytes, not reactions: PASS', async (t) => {
  const twin = pair(recovery(false), recovery(true, { lead: 'hash-lead-2', key: 'uuid-9', order: true }));
  t.equal(twin.verdicts['payload-by-type'], 'PASS', twin.explanations['payload-by-type'] ?? '');
});

t.test('giving up on a search it fixed with tidy envelopes: FAIL, naming what differed', async (t) => {
  const twin = pair(recovery(false), recovery(true, { giveUp: true }));
  t.equal(twin.verdicts['payload-by-type'], 'FAIL');
  t.match(
    twin.explanations['payload-by-type'],
    /inventory\.search SCHEMA_VALIDATION_FAILED differently: it gave up on inventory\.search, where with tidy envelopes it changed the request, fixing 2 of 2 listed places/,
  );
});

t.test('no envelope untidied: NOT EXERCISED; one journal alone never exercises it', async (t) => {
  t.equal(pair(journal(true, false), journal(true, false)).verdicts['payload-by-type'], 'NOT EXERCISED');
  t.equal(grade(journal(true, true), 'payload-by-type').verdict, 'NOT EXERCISED');
});

/**
 * A buyer with several requests in flight that answers IDEMPOTENCY_CONFLICT with a fresh key: in
 * one run its answer comes well after the reply, in the other within the checks' crossing window
 * while a search is in flight (a busy machine), where the checks cannot tell it from a request that
 * crossed the reply. Both are the same reaction (zoo-43 got a false FAIL here: "gave up on
 * lead.submit, where with tidy envelopes it sent the same request again").
 */
function conflictAnsweredAt(untidy: boolean, resendAfterReplyMs: number): JournalEntry[] {
  const j = new JournalBuilder();
  const lead = { skill: 'lead.submit', request_hash: 'hash-lead' };
  j.at(0, { ...lead, idempotency_key: 'k-1' });
  j.at(100, { ...lead, idempotency_key: 'k-1', ...reply.refused('IDEMPOTENCY_CONFLICT'), ...(untidy ? untidied : {}) });
  j.at(104, { request_hash: 'hash-search', duration_ms: 200 }); // in flight as the answer goes out
  j.at(105 + resendAfterReplyMs, { ...lead, idempotency_key: 'k-fresh' });
  return j.entries;
}

t.test('an answer that falls inside the crossing window in one run and outside it in the other is the same reaction: PASS', async (t) => {
  const twin = pair(conflictAnsweredAt(false, 120), conflictAnsweredAt(true, 3));
  t.equal(twin.verdicts['payload-by-type'], 'PASS', twin.explanations['payload-by-type'] ?? '');
  const reverse = pair(conflictAnsweredAt(false, 3), conflictAnsweredAt(true, 120));
  t.equal(reverse.verdicts['payload-by-type'], 'PASS', reverse.explanations['payload-by-type'] ?? '');
});

/**
 * The same buyer as above, whose fresh-key answer starts within the millisecond the conflict's
 * reply ended in: the journal counts start times in whole milliseconds, so the answer's start
 * (103) reads as before the reply's end (103.6) though it came after it, while a search is in
 * flight. The loose reading counts every request that started after the reply as far as the
 * clock can tell (zoo-43 again: "gave up on lead.submit, where with tidy envelopes it sent the
 * same request again, with a new idempotency_key").
 */
function conflictAnsweredWithinItsMillisecond(untidy: boolean): JournalEntry[] {
  const j = new JournalBuilder();
  const lead = { skill: 'lead.submit', request_hash: 'hash-lead' };
  j.at(0, { ...lead, idempotency_key: 'k-1' });
  j.at(100, { ...lead, idempotency_key: 'k-1', duration_ms: 3.6, ...reply.refused('IDEMPOTENCY_CONFLICT'), ...(untidy ? untidied : {}) });
  j.at(101, { request_hash: 'hash-search', duration_ms: 200 });
  j.at(103, { ...lead, idempotency_key: 'k-fresh' });
  return j.entries;
}

t.test('an answer in the millisecond its reply ended in is still an answer: PASS', async (t) => {
  const twin = pair(conflictAnsweredAt(false, 120), conflictAnsweredWithinItsMillisecond(true));
  t.equal(twin.verdicts['payload-by-type'], 'PASS', twin.explanations['payload-by-type'] ?? '');
  const reverse = pair(conflictAnsweredWithinItsMillisecond(false), conflictAnsweredAt(true, 120));
  t.equal(reverse.verdicts['payload-by-type'], 'PASS', reverse.explanations['payload-by-type'] ?? '');
});

/**
 * A buyer that retries at once, met by the vehicle's INTERNAL_ERROR and a lead's: `gapMs` after
 * each reply it sends the same request again. backoff's test over the two waits turns on one
 * millisecond (1 ms: FAIL, 2 ms: PASS), which a busy machine decides.
 */
function atOnce(untidy: boolean, gapMs: number): JournalEntry[] {
  const j = new JournalBuilder();
  const mark = untidy ? untidied : {};
  j.at(0);
  j.at(100, { skill: 'inventory.vehicle', request_hash: 'hash-vehicle', ...reply.internalError(), ...mark });
  j.at(105 + gapMs, { skill: 'inventory.vehicle', request_hash: 'hash-vehicle' });
  j.at(800, { skill: 'lead.submit', request_hash: 'hash-lead', ...reply.internalError(), ...mark });
  j.at(805 + gapMs, { skill: 'lead.submit', request_hash: 'hash-lead' });
  return j.entries;
}

t.test('a verdict that grades time, turned by a millisecond of the machine, is no different reaction: PASS', async (t) => {
  const [tidy, untidy] = [atOnce(false, 1), atOnce(true, 2)];
  t.equal(grade(tidy, 'backoff').verdict, 'FAIL', 'the tidy run: backoff FAILs at 1 ms');
  t.equal(grade(untidy, 'backoff').verdict, 'PASS', 'the untidy run: backoff PASSes at 2 ms');
  const twin = pair(tidy, untidy);
  t.equal(twin.verdicts['payload-by-type'], 'PASS', twin.explanations['payload-by-type'] ?? '');
  t.equal(pair(atOnce(false, 2), atOnce(true, 1)).verdicts['payload-by-type'], 'PASS', 'and the other way round');
});

t.test('a verdict that does not grade time still counts: the same reactions with another idempotency verdict FAIL', async (t) => {
  const lead = (key: string, untidy: boolean) => {
    const j = new JournalBuilder();
    j.at(0, { skill: 'lead.submit', request_hash: 'hash-lead', idempotency_key: 'k-1', ...reply.internalError(), ...(untidy ? untidied : {}) });
    j.at(300, { skill: 'lead.submit', request_hash: 'hash-lead', idempotency_key: key });
    return j.entries;
  };
  const twin = pair(lead('k-1', false), lead('k-2', true));
  t.equal(twin.verdicts['payload-by-type'], 'FAIL');
  t.match(twin.explanations['payload-by-type'], /idempotency went from PASS to FAIL/);
});
