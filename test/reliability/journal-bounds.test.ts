// What a buyer sends cannot grow the journal without bound: every stored string is cut (keeping a
// hash, so distinct values stay distinct) and the ring forgets its oldest lines past a byte budget.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { Journal } from '../../src/journal/journal.js';
import { MAX_STORED_CHARS } from '../../src/common/bounds.js';
import type { JournalEntry } from '../../src/journal/entry.js';

t.test('a 500 KB JSON-RPC id, client key and path are stored bounded', async (t) => {
  const h = await harness(t, 'rules:\n  - { id: keyed, key: "header:x-buyer", match: { skill: inventory.facets }, error: RATE_LIMITED }\n', {
    proxy: { clientKey: 'header:x-buyer' },
  });
  const big = 'i'.repeat(500_000); // the body carries it twice (id and messageId), under the inspection limit
  for (let i = 0; i < 20; i++) {
    const reply = await h.call('inventory.search', {}, { id: `${i}${big}`, headers: { 'x-buyer': 'k'.repeat(8_000) + i } });
    t.equal(h.json(reply).id.length, big.length + String(i).length, 'the buyer still gets its id back verbatim');
  }
  await h.call('inventory.facets', {}, { headers: { 'x-buyer': 'k'.repeat(8_000) } });
  const stored = h.journal;
  t.equal(stored.length, 21);
  for (const e of stored) {
    t.ok(String(e.rpc_id).length < MAX_STORED_CHARS + 64, 'id bounded');
    t.ok(e.client.length < MAX_STORED_CHARS + 64, 'client key bounded');
  }
  t.ok(/…\(500001 chars, sha256:[0-9a-f]{16}\)$/.test(String(stored[0]!.rpc_id)), 'a cut value says how long it was');
  t.equal(new Set(stored.slice(0, 20).map((e) => e.rpc_id)).size, 20, 'long ids sharing a prefix stay distinct');
  // The ring keeps each entry as its JSON line: what the entries cost it is the bytes of those lines.
  t.ok(stored.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0) < 200_000, 'twenty 500 KB ids cost the journal well under 200 KB');
});

t.test('the ring keeps at most its byte budget, newest first', async (t) => {
  const journal = new Journal({ ringSize: 10_000, ringBytes: 100_000 });
  const line = (i: number) => ({ id: String(i).padStart(26, '0'), note: 'x'.repeat(200) }) as unknown as JournalEntry;
  for (let i = 0; i < 5_000; i++) journal.onRequestDone(line(i));
  const kept = journal.all();
  // The ring keeps each entry as its JSON line: what it holds is the bytes of those lines.
  const bytes = journal.lines().reduce((n, text) => n + Buffer.byteLength(text), 0);
  t.ok(bytes <= 100_000, `ring holds ${bytes} bytes`);
  t.ok(kept.length > 50, 'and still many lines');
  t.equal(kept.at(-1)!.id, line(4_999).id, 'the newest line is kept');
  t.equal(Number(kept[0]!.id), 5_000 - kept.length, 'the oldest are forgotten first, in order');
  const counted = new Journal({ ringSize: 3 });
  for (let i = 0; i < 10; i++) counted.onRequestDone(line(i));
  t.same(
    counted.all().map((e) => Number(e.id)),
    [7, 8, 9],
    'the count bound still holds',
  );
  t.same(
    counted.entries({ since: line(7).id }).map((e) => Number(e.id)),
    [8, 9],
  );
});
