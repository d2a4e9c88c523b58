// The journal's per-request work: a line is serialized once whatever the number of sinks, an
// error reply is bounded without being serialized, and the ring sizes a line in the same walk
// that checks its bounds. Each behaviour is checked against what a buyer and a reader see.
import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { WebSocket } from 'ws';
import { callSkill, startTestRuntime } from '../control/control-fixture.js';
import { approxBytes, boundJournalEntry, entryBytes } from '../../src/journal/bounds.js';
import { boundedReplyError, MAX_REPLY_ERROR_BYTES } from '../../src/journal/facts.js';
import type { JsonRpcError } from '../../src/protocol/envelopes.js';
import { journalLine } from '../helpers/journal-line.js';

/** Counts the JSON.stringify calls that `fn` makes on values `which` picks, while it runs. */
async function countStringify(which: (value: unknown) => boolean, fn: () => Promise<void> | void): Promise<number> {
  const original = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (which(value)) calls++;
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    await fn();
  } finally {
    JSON.stringify = original;
  }
  return calls;
}

const isJournalEntry = (v: unknown): boolean => !!v && typeof v === 'object' && 'http_method' in v && 'dry_run' in v;

t.test('with a journal file and an /events client, each line is serialized once and both get the same text', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'aap-chaos-line-'));
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
  t.same(lines.map((l) => JSON.parse(l)), rt.journal.all(), 'and they are the journal lines');
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
    for (const budget of [0, 100, MAX_REPLY_ERROR_BYTES - overhead - 8, MAX_REPLY_ERROR_BYTES - overhead, MAX_REPLY_ERROR_BYTES - overhead + 8, MAX_REPLY_ERROR_BYTES * 2]) {
      const error = { ...base, data: fill(Math.max(0, budget)) };
      const kept = boundedReplyError(error);
      t.equal('data' in kept, keptWhole(error), `${name}, ${Buffer.byteLength(JSON.stringify(error))} bytes: kept whole only when it fits`);
      if (!keptWhole(error)) t.equal(kept.data_omitted_bytes, Buffer.byteLength(JSON.stringify(error.data)), 'and the size left out is named');
    }
  }
});

t.test('the ring sizes a bounded line as approxBytes does, conformance findings added later included', async (t) => {
  const entry = boundJournalEntry(journalLine('01J00000000000000000000001', 1, { notes: ['a', 'b'], rpc_id: 'x'.repeat(100) }));
  t.equal(entryBytes(entry), approxBytes(entry), 'the size remembered from the bounds walk');
  entry.conformance = [{ rule: 'r', message: 'm' } as never];
  t.equal(entryBytes(entry), approxBytes(entry), 'a field added after bounding is counted');
  const cut = boundJournalEntry(journalLine('01J00000000000000000000002', 2, { rpc_id: 'y'.repeat(10_000) }));
  t.equal(entryBytes(cut), approxBytes(cut), 'a line that had to be cut is sized as stored');
  const other = journalLine('01J00000000000000000000003', 3);
  t.equal(entryBytes(other), approxBytes(other), 'a line never bounded is measured');
});
