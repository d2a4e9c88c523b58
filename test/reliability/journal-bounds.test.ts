// What a buyer sends cannot grow the journal without bound: every stored string is cut (keeping a
// hash, so distinct values stay distinct) and the ring forgets its oldest lines past a byte budget.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { Journal } from '../../src/journal/journal.js';
import { boundJournalEntry, MAX_STORED_CHARS } from '../../src/common/bounds.js';
import { ExactNumberId } from '../../src/protocol/rpc-id.js';
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

t.test('the ring keeps at most its byte budget, newest first, whether it keeps lines by shape or as text', async (t) => {
  // Lines whose entries repeat are kept by shape (their per-request values); lines that never repeat, as their text.
  for (const [kind, note] of [
    ['by shape', (_i: number) => 'x'.repeat(200)],
    ['as text', (i: number) => 'x'.repeat(200) + i],
  ] as const) {
    const journal = new Journal({ ringSize: 10_000, ringBytes: 100_000 });
    const line = (i: number) => ({ id: String(i).padStart(26, '0'), note: note(i) }) as unknown as JournalEntry;
    for (let i = 0; i < 5_000; i++) journal.onRequestDone(line(i));
    const kept = journal.all();
    t.ok(journal.keptBytes <= 100_000, `${kind}: the ring holds ${journal.keptBytes} bytes`);
    if (kind === 'as text') {
      const bytes = journal.lines().reduce((n, text) => n + Buffer.byteLength(text), 0);
      t.equal(bytes, journal.keptBytes, 'as text: what it holds is the bytes of the lines');
    }
    t.ok(kept.length > 50, `${kind}: and still many lines (${kept.length})`);
    t.same(kept.at(-1), line(4_999), `${kind}: the newest line is kept`);
    t.equal(Number(kept[0]!.id), 5_000 - kept.length, `${kind}: the oldest are forgotten first, in order`);
  }
  const line = (i: number) => ({ id: String(i).padStart(26, '0'), note: 'x'.repeat(200) }) as unknown as JournalEntry;
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

t.test('a line cut to its bounds writes an exact JSON-RPC id as the number it is, as a line within them does', async (t) => {
  const id = new ExactNumberId('1.50');
  const within = boundJournalEntry({ rpc_id: id, path: '/a2a' });
  const cut = boundJournalEntry({ rpc_id: id, path: '/a2a', notes: ['n'.repeat(MAX_STORED_CHARS + 1)] });
  t.equal(JSON.stringify(within), '{"rpc_id":1.5,"path":"/a2a"}');
  t.match(JSON.stringify(cut), /^\{"rpc_id":1\.5,"path":"\/a2a","notes":\["n+…\(257 chars, sha256:[0-9a-f]{16}\)"\]\}$/, 'not its fields ({"text":"1.50"})');
});
