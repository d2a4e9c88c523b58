import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { ulid } from 'ulid';
import type { JournalEntry } from '../../src/journal/entry.js';
import { Journal } from '../../src/journal/journal.js';
import { journalLine } from '../helpers/journal-line.js';
import { tempDir } from '../helpers/temp-dir.js';

const ids = new Map<number, string>();

/** Entry n, the same every time it is asked for (one ULID per n). */
function entry(n: number, t0 = 1_700_000_000_000): JournalEntry {
  if (!ids.has(n)) ids.set(n, ulid(t0 + n));
  return journalLine(ids.get(n)!, t0 + n, { rpc_id: n });
}

t.test('the ring keeps the most recent entries, oldest first', async (t) => {
  const journal = new Journal({ ringSize: 3 });
  for (let n = 1; n <= 5; n++) journal.onRequestDone(entry(n));
  t.same(
    journal.all().map((e) => e.rpc_id),
    [3, 4, 5],
  );
  journal.clear();
  t.same(journal.all(), []);
});

t.test('since: entries finished after the cursor while it is in the ring, by ULID once it has left', async (t) => {
  const journal = new Journal({ ringSize: 4 });
  // A slow request (n=1) finishes after a fast one (n=2) that started later.
  for (const n of [2, 1, 3]) journal.onRequestDone(entry(n));
  t.same(
    journal.entries({ since: entry(2).id }).map((e) => e.rpc_id),
    [1, 3],
    'the slow request is not skipped',
  );
  t.same(
    journal.entries({ since: entry(2).id, limit: 1 }).map((e) => e.rpc_id),
    [1],
  );
  for (const n of [4, 5, 6]) journal.onRequestDone(entry(n));
  t.same(
    journal.entries({ since: entry(2).id }).map((e) => e.rpc_id),
    [3, 4, 5, 6],
    'evicted cursor: by ULID order',
  );
});

t.test('the file gets one JSON line per entry; flush resolves once they are written', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-journal-'), 'journal.jsonl');
  const journal = new Journal({ file });
  await journal.open();
  for (let n = 1; n <= 500; n++) journal.onRequestDone(entry(n));
  await journal.flush();
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  t.equal(lines.length, 500);
  t.same(JSON.parse(lines[499]!), entry(500));
  journal.onRequestDone(entry(501));
  await journal.close();
  t.equal((await readFile(file, 'utf8')).trim().split('\n').length, 501, 'close flushes too');
});

t.test('the file is appended to, never truncated', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-journal-'), 'journal.jsonl');
  for (const n of [1, 2]) {
    const journal = new Journal({ file });
    await journal.open();
    journal.onRequestDone(entry(n));
    await journal.close();
  }
  t.equal((await readFile(file, 'utf8')).trim().split('\n').length, 2);
});

t.test('a journal file that cannot be opened is a clear start-up error', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-journal-'), 'missing-dir', 'journal.jsonl');
  await t.rejects(new Journal({ file }).open(), { message: `--journal: cannot open ${file} for appending (ENOENT)` });
});

t.test('past the pending-bytes cap lines are dropped and counted, not buffered forever', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-journal-'), 'journal.jsonl');
  const drops: number[] = [];
  const one = JSON.stringify(entry(1)).length + 1;
  const journal = new Journal({ file, maxPendingBytes: one * 2, onDrop: (n) => drops.push(n) });
  await journal.open();
  // All in one turn of the event loop: nothing is written until it ends.
  for (let n = 1; n <= 5; n++) journal.onRequestDone(entry(n));
  t.equal(journal.dropped, 3);
  t.same(drops, [1, 1, 1]);
  await journal.close();
  t.equal((await readFile(file, 'utf8')).trim().split('\n').length, 2);
  t.equal(journal.all().length, 5, 'the ring still has them all');
});
