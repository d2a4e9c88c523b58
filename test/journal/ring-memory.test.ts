// What the journal ring keeps per line: not the entry object (an object graph the collector has
// to mark and that fragmented the old generation when it died) but the line's bytes (or, with no
// journal file, its per-request values beside one entry per shape), in chunks outside the heap
// that are reused once all their lines are forgotten.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { Journal } from '../../src/journal/journal.js';
import { LineRing, RING_CHUNK_BYTES } from '../../src/journal/line-ring.js';
import { journalLine } from '../helpers/journal-line.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A full collection once the current turn is over (a WeakRef holds its target until then). */
async function collect(): Promise<void> {
  await nextTurn();
  gc();
  gc();
}

/** A line of the size the proxy journals for an injected error (about 1 KB). */
function errorSizedLine(n: number): JournalEntry {
  const id = `01J${String(n).padStart(23, '0')}`;
  return journalLine(id, 1_700_000_000_000 + n, { rpc_id: n, notes: ['n'.repeat(700)] });
}

t.test('the ring keeps no journal entry object alive: the entries of real requests are collected', async (t) => {
  const rt = await startTestRuntime(t);
  const refs: WeakRef<JournalEntry>[] = [];
  rt.events.on('request', (entry) => refs.push(new WeakRef(entry)));
  for (let i = 0; i < 20; i++) await callSkill(rt.url, i % 2 ? 'inventory.search' : 'dealer.information', `weak-${i}`);
  t.equal(refs.length, 20, 'every request was journaled');
  await collect();
  // src/journal/line.ts keeps the last entry it serialized (one slot, so the sinks share the text),
  // and with no journal file the ring keeps the first entry of each shape (two kinds of request here).
  const alive = refs.map((r, i) => (r.deref() === undefined ? -1 : i)).filter((i) => i >= 0);
  t.ok(
    alive.every((i) => i < 2 || i === refs.length - 1),
    `no entry object survives a collection but the first of each shape and the last one (alive: ${alive.join(', ')})`,
  );
  const kept = rt.journal.all();
  t.equal(kept.length, 20, 'while the ring still holds every line');
  t.same(
    kept.map((e) => e.rpc_id),
    refs.map((_, i) => `weak-${i}`),
    'in order',
  );
  t.equal(kept[1]!.error_code, 'RATE_LIMITED', 'with its fields');
});

t.test('the heap holds a few numbers per line; the text sits in chunks that are reused', async (t) => {
  const line = (n: number) => JSON.stringify(errorSizedLine(n)) + '\n';
  const lineBytes = Buffer.byteLength(line(0));
  const ring = new LineRing(10_000, Infinity);
  await collect();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let n = 0; n < 10_000; n++) ring.push(line(n), undefined);
  const chunkBytesFull = ring.chunkBytes;
  t.ok(chunkBytesFull <= 10_000 * lineBytes + 2 * RING_CHUNK_BYTES, `10,000 lines of ${lineBytes} bytes in ${chunkBytesFull} bytes of chunks`);
  for (let n = 10_000; n < 30_000; n++) ring.push(line(n), undefined);
  // At most one chunk more: a chunk whose lines were all forgotten, waiting to be written again.
  t.ok(ring.chunkBytes <= chunkBytesFull + RING_CHUNK_BYTES, `20,000 more lines reuse the chunks of the forgotten ones (${ring.chunkBytes} bytes)`);
  await collect();
  const heapPerLine = (process.memoryUsage().heapUsed - heapBefore) / 10_000;
  t.ok(heapPerLine < lineBytes / 4, `the heap grew by ${Math.round(heapPerLine)} bytes per line kept, not by the line (${lineBytes} bytes)`);
  t.equal(ring.size, 10_000);
  t.equal(ring.line(ring.indexes().at(-1)!), line(29_999), 'the newest line reads back');
});

t.test('with no journal file, lines kept by shape cost the heap a few numbers each, and so does traffic with no repeating shape', async (t) => {
  const lineBytes = Buffer.byteLength(JSON.stringify(errorSizedLine(0)) + '\n');
  for (const [traffic, entry] of [
    ['one shape', errorSizedLine],
    // A field compared between entries that differs every time: each would need a shape of its own.
    ['no repeating shape', (n: number) => ({ ...errorSizedLine(n), status: n })],
  ] as const) {
    const journal = new Journal({ ringSize: 10_000 });
    await collect();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let n = 0; n < 10_000; n++) journal.onRequestDone(entry(n));
    await collect();
    const heapPerLine = (process.memoryUsage().heapUsed - heapBefore) / 10_000;
    t.ok(heapPerLine < lineBytes / 4, `${traffic}: the heap grew by ${Math.round(heapPerLine)} bytes per line kept, not by the line (${lineBytes} bytes)`);
    t.equal(journal.lines().at(-1), JSON.stringify(entry(9_999)) + '\n', `${traffic}: the newest line reads back`);
    t.equal(journal.size, 10_000);
  }
});

t.test('lines read back as written: non-ASCII text, a line longer than a chunk, ids not first or escaped', async (t) => {
  const journal = new Journal({ ringSize: 10 });
  const accented = errorSizedLine(1);
  accented.notes = ['é€😀 \u0001 "quoted" \\ back'];
  const huge = errorSizedLine(2);
  huge.notes = ['h'.repeat(RING_CHUNK_BYTES + 10)];
  const idLast = { rpc_id: 3, id: '01J00000000000000000000003' } as unknown as JournalEntry;
  const escapedId = errorSizedLine(4);
  escapedId.id = 'a"b';
  for (const e of [accented, huge, idLast, escapedId]) journal.onRequestDone(e);
  t.same(journal.all(), [accented, huge, idLast, escapedId]);
  t.same(
    journal.entries({ since: accented.id }).map((e) => e.rpc_id),
    [2, 3, 4],
    'since finds a line by its id',
  );
  t.same(
    journal.entries({ since: idLast.id }).map((e) => e.rpc_id),
    [4],
    'also when the id is not the first field',
  );
  t.same(journal.entries({ since: 'a"b' }), [], 'or has to be unescaped');
  t.same(journal.lines({ limit: 1 }), [JSON.stringify(accented) + '\n'], 'lines are the JSON text, newline included');
});

t.test('sessions: lines are selected and cleared by the session they name', async (t) => {
  const journal = new Journal({ ringSize: 100 });
  for (let n = 0; n < 9; n++) journal.onRequestDone({ ...errorSizedLine(n), ...(n % 3 ? { session: `s${n % 3}` } : {}) });
  t.same(
    journal.ofSession('s1').map((e) => e.rpc_id),
    [1, 4, 7],
  );
  t.same(
    journal.ofSession('default').map((e) => e.rpc_id),
    [0, 3, 6],
  );
  journal.clear('s1');
  t.same(
    journal.all().map((e) => e.rpc_id),
    [0, 2, 3, 5, 6, 8],
    'clearing a session keeps the others in order',
  );
  t.equal(journal.size, 6);
  journal.onRequestDone(errorSizedLine(9));
  t.same(journal.all().at(-1)!.rpc_id, 9, 'and new lines follow them');
});
