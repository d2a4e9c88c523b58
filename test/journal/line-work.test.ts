// The journal's per-request work: a line is serialized once whatever the number of sinks, an
// error reply is bounded without being serialized, and the ring keeps the line's text, not the
// entry's objects. Each behaviour is checked against what a buyer and a reader see.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { WebSocket } from 'ws';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';
import { Journal } from '../../src/journal/journal.js';
import { boundedReplyError, MAX_REPLY_ERROR_BYTES } from '../../src/journal/build-entry.js';
import type { JsonRpcError } from '../../src/protocol/envelopes.js';
import { journalLine } from '../helpers/journal-line.js';
import { countStringify, isJournalEntry } from '../helpers/count-stringify.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('with a journal file and an /events client, each line is serialized once and both get the same text', async (t) => {
  const dir = tempDir(t, 'aap-chaos-line-');
  const file = path.join(dir, 'journal.jsonl');
  const rt = await startTestRuntime(t, { journalFile: file });
  const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
  const messages: string[] = [];
  ws.on('message', (data) => messages.push(data.toString()));
  await once(ws, 'open');
  t.teardown(() => ws.close());
  const calls = await countStringify(isJournalEntry, async () => {
    await callSkill(rt.url, 'inventory.search', 'once-1');
    await callSkill(rt.url, 'dealer.information', 'once-2');
    await rt.journal.flush();
  });
  while (messages.length < 2) await once(ws, 'message');
  t.equal(calls, 2, 'two requests, two serializations (one each for the file and the subscriber together)');
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  t.same(lines, messages, 'the file line and the event message are the same text');
  t.same(
    lines.map((l) => JSON.parse(l)),
    rt.journal.all(),
    'and they are the journal lines',
  );
});

t.test('an injected error is journaled with its whole error member, without serializing it', async (t) => {
  const rt = await startTestRuntime(t);
  const isErrorMember = (v: unknown): boolean => !!v && typeof v === 'object' && 'code' in v && 'message' in v && !('jsonrpc' in v);
  let reply!: Awaited<ReturnType<typeof callSkill>>;
  const calls = await countStringify(isErrorMember, async () => {
    reply = await callSkill(rt.url, 'inventory.search', 'err-1');
  });
  t.equal(calls, 0, 'the journal does not serialize the error member to bound it');
  const [entry] = rt.journal.all();
  t.same(entry!.reply_error, JSON.parse(reply.body.toString('utf8')).error, 'the journal keeps the error the buyer got');
});

/** The decision as it was made before: serialize and compare with the limit. */
const keptWhole = (error: JsonRpcError) => Buffer.byteLength(JSON.stringify(error)) <= MAX_REPLY_ERROR_BYTES;

t.test('an error member is kept whole exactly when its JSON fits the limit', async (t) => {
  const base = { code: -32603, message: 'Internal error' };
  const overhead = Buffer.byteLength(JSON.stringify({ ...base, data: '' }));
  const fills: Array<[string, (n: number) => unknown]> = [
    ['ASCII', (n) => 'a'.repeat(n)],
    ['quotes and backslashes', (n) => '"\\'.repeat(Math.floor(n / 4))],
    ['two-byte characters', (n) => 'é'.repeat(Math.floor(n / 2))],
    ['three-byte characters', (n) => '€'.repeat(Math.floor(n / 3))],
    ['surrogate pairs', (n) => '😀'.repeat(Math.floor(n / 4))],
    ['control characters', (n) => '\u0001'.repeat(Math.floor(n / 6))],
    ['a lone surrogate', (n) => '\ud800'.repeat(Math.floor(n / 6))],
    ['numbers in a list', (n) => Array.from({ length: Math.floor(n / 26) }, () => -0.0000012345678901234567)],
    ['nested objects', (n) => ({ details: { errors: Array.from({ length: Math.floor(n / 40) }, (_, i) => ({ pointer: `/p/${i}`, ok: true })) } })],
  ];
  for (const [name, fill] of fills) {
    for (const budget of [
      0,
      100,
      MAX_REPLY_ERROR_BYTES - overhead - 8,
      MAX_REPLY_ERROR_BYTES - overhead,
      MAX_REPLY_ERROR_BYTES - overhead + 8,
      MAX_REPLY_ERROR_BYTES * 2,
    ]) {
      const error = { ...base, data: fill(Math.max(0, budget)) };
      const kept = boundedReplyError(error);
      t.equal('data' in kept, keptWhole(error), `${name}, ${Buffer.byteLength(JSON.stringify(error))} bytes: kept whole only when it fits`);
      if (!keptWhole(error)) t.equal(kept.data_omitted_bytes, Buffer.byteLength(JSON.stringify(error.data)), 'and the size left out is named');
    }
  }
});

t.test('the ring keeps each entry as its line: readers get the data as recorded, sized by its bytes', async (t) => {
  const journal = new Journal({ ringSize: 3, ringBytes: 10_000 });
  const first = journalLine('01J00000000000000000000001', 1, { notes: ['a', 'b'], session: 's1' });
  journal.onRequestDone(first);
  const recorded = JSON.parse(JSON.stringify(first));
  // Held as text, not as the object: a caller that changes its entry later changes nothing kept.
  first.notes!.push('changed afterwards');
  t.same(journal.all(), [recorded], 'the entry reads back as it was when recorded');
  t.not(journal.all()[0], first, 'a reader gets its own copy');
  t.same(journal.lines(), [JSON.stringify(recorded) + '\n'], 'GET /journal sends the kept line as it is');
  for (let i = 2; i <= 5; i++) journal.onRequestDone(journalLine(`01J0000000000000000000000${i}`, i, { session: i % 2 ? 's1' : 's2' }));
  t.same(
    journal.all().map((e) => e.id.slice(-1)),
    ['3', '4', '5'],
    'the oldest are forgotten past ringSize',
  );
  t.equal(journal.size, 3);
  t.same(
    journal.entries({ session: 's1' }).map((e) => e.id.slice(-1)),
    ['3', '5'],
    'a session query selects by the kept session',
  );
  t.same(
    journal.entries({ since: '01J00000000000000000000003', limit: 1 }).map((e) => e.id.slice(-1)),
    ['4'],
    'since and limit',
  );
  journal.clear('s1');
  t.same(
    journal.all().map((e) => e.id.slice(-1)),
    ['4'],
    "clearing a session keeps the others' lines",
  );

  const small = new Journal({ ringSize: 100, ringBytes: 1 });
  small.onRequestDone(journalLine('01J00000000000000000000007', 7));
  small.onRequestDone(journalLine('01J00000000000000000000008', 8));
  t.same(
    small.all().map((e) => e.id.slice(-1)),
    ['8'],
    'past ringBytes the oldest goes, the newest always stays',
  );
});

t.test('request hashes do not depend on key order, and start times read as toISOString writes them', async (t) => {
  const { canonicalHash } = await import('../../src/journal/build-entry.js');
  const sorted = { a: 1, b: { c: [1, 'x', { d: null, e: true }] } };
  const shuffled = { b: { c: [1, 'x', { e: true, d: null }] }, a: 1 };
  t.equal(canonicalHash(sorted), canonicalHash(shuffled), 'the same data in another key order hashes alike');
  t.not(canonicalHash({ '9': 1, '10': 2 }), canonicalHash({ a: 1 }), 'integer-like keys are hashed too');
  t.equal(canonicalHash({ '9': 1, '10': 2 }), canonicalHash({ '10': 2, '9': 1 }), 'integer-like keys sort as text');
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'dealer.information', 'ts-1');
  for (const e of rt.journal.all()) t.equal(e.ts, new Date(e.t).toISOString(), 'ts is the start time in RFC 3339 with milliseconds');
});

t.test('start times keep their milliseconds, padded, across seconds', async (t) => {
  const { buildJournalEntry } = await import('../../src/journal/build-entry.js');
  const { classifyRequest } = await import('../../src/protocol/classify.js');
  const request = classifyRequest({ method: 'GET', url: '/', headers: {}, clientIp: '127.0.0.1', body: null, oversized: false } as never);
  const base = Date.UTC(2026, 0, 2, 3, 4, 5);
  for (const ms of [base, base + 5, base + 50, base + 999, base + 1000, base + 61_007]) {
    const entry = buildJournalEntry(
      request,
      { matched: [], fired: [], sentences: [], applied: [] },
      { source: 'dealer', notes: [] },
      {
        startedAt: ms,
        durationMs: 1,
        client: '127.0.0.1',
        clientKey: 'ip',
        status: 200,
        aborted: false,
        dryRun: false,
        profile: '1.3',
        extensionUri: 'x',
      },
    );
    t.equal(entry.ts, new Date(ms).toISOString(), `${ms}`);
  }
});

t.test('the request hash is the hash of the sorted JSON text, whichever way it is written', async (t) => {
  const { canonicalHash } = await import('../../src/journal/build-entry.js');
  const { hash } = await import('node:crypto');
  const expect = (text: string) => hash('sha256', text).slice(0, 16);
  t.equal(
    canonicalHash({ type: 't', filters: { make: ['Honda'], year_min: 2021 } }),
    expect('{"filters":{"make":["Honda"],"year_min":2021},"type":"t"}'),
    'unsorted keys',
  );
  t.equal(canonicalHash({ b: 1, '10': 2, '9': 3 }), expect('{"10":2,"9":3,"b":1}'), 'index-like keys in text order');
  t.equal(canonicalHash({ b: undefined, a: [undefined, NaN] }), expect('{"a":[null,null],"b":null}'), 'values JSON would drop');
  t.equal(canonicalHash({ a: 'é"\\\n' }), expect(`{"a":${JSON.stringify('é"\\\n')}}`), 'escapes');
});
