// --journal-max-bytes: the journal file rotates under load without losing or splitting a line:
// every request answered has exactly one line in exactly one of FILE, FILE.1 … (gzip-compressed
// with --journal-compress), no file grows past the limit, and every file is created 0600.
// --journal-keep deletes the oldest rotated files.
import t from 'tap';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Journal } from '../../src/journal/journal.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { startTestRuntime, callSkill } from '../control/control-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every file of a rotated journal with its text (gzip undone), newest last. */
async function journalFiles(file: string): Promise<{ name: string; bytes: number; mode: number; text: string }[]> {
  const base = path.basename(file);
  const names = (await readdir(path.dirname(file))).filter((n) => n === base || /^\.\d+(\.gz)?$/.test(n.slice(base.length)));
  const files = [];
  for (const name of names) {
    const full = path.join(path.dirname(file), name);
    const raw = await readFile(full);
    const text = name.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    files.push({ name, bytes: Buffer.byteLength(text), mode: (await stat(full)).mode & 0o777, text });
  }
  return files;
}

/** `count` requests, `parallel` at a time, half of them answered by an injected error and half by the dealer. */
async function load(url: string, count: number, parallel: number): Promise<number> {
  let next = 0;
  let answered = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const reply = await callSkill(url, i % 2 ? 'inventory.search' : 'dealer.information', i);
      if (reply.status > 0) answered++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return answered;
}

for (const compress of [false, true]) {
  t.test(`under load, every line is in one file and none is split (compress: ${compress})`, async (t) => {
    const file = path.join(tempDir(t, 'aap-chaos-rotation-'), 'journal.jsonl');
    const maxBytes = 16 * 1024;
    const runtime = await startTestRuntime(t, { journalFile: file, journalMaxBytes: maxBytes, journalKeep: 1000, journalCompress: compress });
    const answered = await load(runtime.url, 600, 16);
    t.equal(answered, 600, 'every request was answered');
    const metrics = await runtime.metrics.text();
    await runtime.close();

    const files = await journalFiles(file);
    t.ok(files.length > 5, `the file rotated (${files.length} files)`);
    t.match(metrics, /aap_chaos_file_rotations_total\{file="journal"\} [1-9]/, 'rotations are counted');
    const ids = new Set<string>();
    for (const f of files) {
      t.ok(f.bytes <= maxBytes, `${f.name}: ${f.bytes} bytes, within the limit`);
      t.ok(f.text.endsWith('\n'), `${f.name} ends with a whole line`);
      t.equal(f.mode, 0o600, `${f.name} is readable by its owner only`);
      if (compress && f.name !== 'journal.jsonl') t.ok(f.name.endsWith('.gz'), `${f.name} is compressed`);
      for (const line of f.text.split('\n').slice(0, -1)) ids.add((JSON.parse(line) as JournalEntry).id);
    }
    const lines = files.reduce((n, f) => n + f.text.split('\n').length - 1, 0);
    t.equal(lines, 600, 'one line per request answered, across the files');
    t.equal(ids.size, 600, 'no line twice');
  });
}

t.test('--journal-keep: rotated files past K are deleted, the newest kept', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-rotation-'), 'j.jsonl');
  const journal = new Journal({ file, rotation: { maxBytes: 1024, keep: 2 } });
  await journal.open();
  const entry = (n: number) => ({ id: `01J${String(n).padStart(23, '0')}`, t: n, note: 'x'.repeat(200) }) as unknown as JournalEntry;
  // One line per turn: each batch is its own write, so the file rotates many times.
  for (let n = 1; n <= 40; n++) {
    journal.onRequestDone(entry(n));
    await journal.flush();
  }
  await journal.close();
  t.ok(journal.rotations >= 5, `${journal.rotations} rotations`);
  t.same((await readdir(path.dirname(file))).sort(), ['j.jsonl', 'j.jsonl.1', 'j.jsonl.2']);
  const newest = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as JournalEntry).t);
  t.equal(newest.at(-1), 40, 'the last line is in FILE');
});

t.test('a pending batch larger than the limit is cut at line boundaries, one file after another', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-rotation-'), 'j.jsonl');
  const journal = new Journal({ file, rotation: { maxBytes: 2048, keep: 50 } });
  await journal.open();
  // All in one turn of the event loop: one pending batch of about 20 KB.
  for (let n = 1; n <= 80; n++) journal.onRequestDone({ id: `id-${n}`, t: n, note: 'y'.repeat(200) } as unknown as JournalEntry);
  await journal.close();
  const files = await journalFiles(file);
  t.ok(files.length >= 8, `${files.length} files`);
  for (const f of files) t.ok(f.bytes <= 2048 && f.text.endsWith('\n'), `${f.name}: whole lines within the limit`);
  const rank = (name: string) => (name === 'j.jsonl' ? 0 : Number(name.slice('j.jsonl.'.length)));
  const order = files
    .sort((a, b) => rank(b.name) - rank(a.name))
    .flatMap((f) =>
      f.text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as JournalEntry).t),
    );
  t.same(
    order,
    Array.from({ length: 80 }, (_, i) => i + 1),
    'oldest file first, the lines in the order they were written',
  );
});
