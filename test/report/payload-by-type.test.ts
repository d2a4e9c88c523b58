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

t.test('the same requests and verdicts with untidy envelopes: PASS', async (t) => {
  const twin = pair(journal(true, false), journal(true, true));
  t.equal(twin.verdicts['payload-by-type'], 'PASS');
  t.match(twin.explanations['payload-by-type'], /the same 4 requests and verdicts with 1 shuffled, padded error envelope/);
});

t.test('a buyer that gives up once the payload is not where it looked: FAIL, with the request that changed', async (t) => {
  const untidy = journal(false, true);
  const twin = pair(journal(true, false), untidy);
  t.equal(twin.verdicts['payload-by-type'], 'FAIL');
  t.equal(twin.ok, false);
  t.match(twin.explanations['payload-by-type'], /request 3 was lead\.submit hash-lead instead of inventory\.vehicle hash-vehicle/);
  t.same(twin.evidence['payload-by-type'], [untidy[2]!.id]);
});

t.test('no envelope untidied: NOT EXERCISED; one journal alone never exercises it', async (t) => {
  t.equal(pair(journal(true, false), journal(true, false)).verdicts['payload-by-type'], 'NOT EXERCISED');
  t.equal(grade(journal(true, true), 'payload-by-type').verdict, 'NOT EXERCISED');
});
