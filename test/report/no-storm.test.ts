import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
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

/**
 * The grading as it read before its windows were found by binary search: every request after each
 * RATE_LIMITED walked until the window's end, and every close one checked against all the others.
 */
function slowNoStorm(entries: JournalEntry[], tolerance: number, allowed: number): string[] {
  // In the order the report reads a client's requests: by start, then by id.
  const requests = [...entries].sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const skillOf = (e: JournalEntry) => e.skill ?? e.method ?? e.path;
  const reacts = (earlier: JournalEntry, later: JournalEntry) => {
    if (later.t < earlier.t + earlier.duration_ms - 1) return false;
    const replyEnd = earlier.t + earlier.duration_ms;
    if (later.t >= replyEnd + tolerance) return true;
    const beside = (r: JournalEntry, from: number, to: number) => r.t < to && r.t + r.duration_ms > from;
    return !requests.some((r) => r !== earlier && r !== later && (beside(r, earlier.t, replyEnd) || beside(r, later.t, later.t)));
  };
  const ids: string[] = [];
  const stormIds: string[] = [];
  requests.forEach((limited, index) => {
    if (limited.error_code !== 'RATE_LIMITED' || !(Number(limited.retry_after_ms) > 0)) return;
    ids.push(limited.id);
    const windowEnd = limited.t + limited.retry_after_ms! - tolerance;
    const extras: JournalEntry[] = [];
    for (let i = index + 1; i < requests.length && requests[i]!.t < windowEnd; i++)
      if (skillOf(requests[i]!) === skillOf(limited) && reacts(limited, requests[i]!)) extras.push(requests[i]!);
    if (extras.length > allowed) stormIds.push(limited.id, ...extras.map((e) => e.id));
  });
  return [...new Set(stormIds.length > 0 ? stormIds : ids)];
}

/** A concurrent buyer: requests a few ms apart, several in flight, some rate-limited, over two skills. */
function busyJournal(lines: number, seed: number): JournalEntry[] {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const j = new JournalBuilder();
  let at = 0;
  for (let n = 0; n < lines; n++) {
    at += Math.floor(random() * 8);
    const skill = random() < 0.7 ? 'inventory.search' : 'inventory.vehicle';
    const limited = random() < 0.3;
    j.at(at, { skill, duration_ms: 1 + Math.floor(random() * 40), ...(limited ? reply.rateLimited(50 + Math.floor(random() * 3000)) : {}) });
  }
  return j.entries;
}

t.test('over concurrent buyers, the windows are the ones a walk of every request finds', async (t) => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const entries = busyJournal(400, seed);
    t.same(grade(entries, 'no-storm').evidence, slowNoStorm(entries, 50, 0), `seed ${seed}: the same evidence`);
  }
});

t.test('a full journal ring from one busy buyer is graded in well under a second, not quadratically', async (t) => {
  const entries = busyJournal(10_000, 7);
  // CPU time, not wall time: other test files beside this one cannot stretch it.
  const before = process.cpuUsage();
  const result = grade(entries, 'no-storm');
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  t.equal(result.verdict, 'FAIL');
  // A walk of every request per window took 2.5 s of CPU here, the index about 0.2 s.
  t.ok(ms < 1_000, `graded in ${Math.round(ms)} ms of CPU`);
});
