// The journal lines every kind of traffic leaves, as each reader gets them: the journal file, an
// /events subscriber, a library listener, GET /journal and the ring itself must hold the same
// bytes for the same request. And a proxy nobody reads during the traffic must journal the same
// lines (but for the fields that differ by nature: ids, times, durations), read only afterwards.
// This is the guard for any change to when or how the line's text is built.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { WebSocket } from 'ws';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { request, skillRequest, waitFor } from '../helpers/servers.js';
import { countStringify, isJournalEntry } from '../helpers/count-stringify.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Each traffic kind is picked by the x-case header, so one scenario serves them all. */
const SCENARIO = `scenario: line-equivalence
seed: 3
rules:
  - id: untidy
    match: { headers: { x-case: untidy } }
    envelope: { shuffle: true, unknown_detail: true }
  - id: untidy-error
    match: { headers: { x-case: untidy } }
    error: INTERNAL_ERROR
  - id: internal
    match: { headers: { x-case: error } }
    error: INTERNAL_ERROR
  - id: not-found
    match: { headers: { x-case: not-found } }
    error: VEHICLE_NOT_FOUND
  - id: throttle
    match: { headers: { x-case: rate } }
    rate_limit: { limit: 1, window_ms: 600000 }
  - id: needs-extension
    match: { headers: { x-case: extension } }
    require: { extension: true }
  - id: reset
    match: { headers: { x-case: reset } }
    network: reset
  - id: cut
    match: { headers: { x-case: cut } }
    network: { truncate_bytes: 20 }
  - id: bad-json
    match: { headers: { x-case: bad-json } }
    network: malformed_json
  - id: gateway
    match: { headers: { x-case: gateway } }
    http: { status: 502, headers: { content-type: text/html }, body: "<h1>502</h1>" }
  - id: patched
    match: { headers: { x-case: patch } }
    patch: [{ op: replace, path: /result/message/messageId, value: changed }]
  - id: delayed
    match: { headers: { x-case: delay } }
    delay: { ms: 1 }
  - id: slow-stream
    match: { method: SendStreamingMessage }
    stream: { delay_ms: 1, error_after: 2 }
`;

const LEAD = { customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+15550100' }, consent: { contact: true }, vehicle_id: 'v-1' };

/** One request of each kind, in a fixed order; a connection the proxy breaks is not a failure here. */
async function drive(proxyUrl: string): Promise<void> {
  const post = (body: string, headers: Record<string, string> = {}, at = '/a2a') =>
    request(proxyUrl + at, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).catch(() => undefined);
  const skill = (name: string, c?: string, data: Record<string, unknown> = {}) =>
    post(skillRequest(name, data, `${name}-${c ?? 'plain'}`), c ? { 'x-case': c } : {});
  await skill('inventory.search'); // pass-through
  await skill('inventory.search', 'delay');
  await skill('inventory.search', 'patch');
  await skill('inventory.search', 'error');
  await skill('inventory.vehicle', 'not-found', { vin: 'VIN123' });
  await skill('inventory.search', 'untidy');
  await skill('inventory.search', 'rate');
  await skill('inventory.search', 'rate'); // refused: over the limit
  await skill('inventory.search', 'extension'); // refused: no extension header
  await skill('lead.submit', undefined, { ...LEAD, idempotency_key: 'k-1' });
  await skill('lead.submit', 'error', { ...LEAD, idempotency_key: 'k-2' });
  await skill('inventory.search', 'reset');
  await skill('inventory.search', 'cut');
  await skill('inventory.search', 'bad-json');
  await skill('inventory.search', 'gateway');
  await skill('inventory.search', undefined, { filters: { make: ['Honda'] }, year_min: 'soon' }); // invalid payload
  await post('{"jsonrpc": "2.0", "id": 9, "method": '); // not JSON
  await post('{"hello": "world"}'); // JSON, not JSON-RPC
  await post('[{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]'); // batch
  await post(JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'SendMessage', pad: 'x'.repeat(300_000) })); // past --max-inspect-bytes
  const stream = JSON.parse(skillRequest('inventory.search', {}, 'stream-1'));
  stream.method = 'SendStreamingMessage';
  await post(JSON.stringify(stream), { accept: 'text/event-stream' });
  await request(proxyUrl + '/.well-known/agent-card.json').catch(() => undefined);
}

const TRAFFIC_LINES = 22;

async function start(t: Test, opts: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await startRuntime({ port: 0, adminPort: 0, scenario: SCENARIO, env: {}, maxInspectBytes: 64 * 1024, ...opts });
  t.teardown(() => rt.close());
  return rt;
}

/** The fields that differ between two runs of the same traffic by nature: ids, clocks, durations, time left in a window. */
function withoutVolatile(line: string): string {
  return line
    .replace(/"(id|error_id)":"(err_)?[0-9A-HJKMNP-TV-Z]{26}"/g, '"$1":"…"')
    .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, '…')
    .replace(/"(ts|created_at)":"[^"]*"/g, '"$1":"…"')
    .replace(/"(t|duration_ms|upstream_ms|retry_after_ms)":[0-9.e+-]+/g, '"$1":0')
    .replace(/retry after \d+ ms/g, 'retry after … ms');
}

t.test('every reader gets the same bytes for every kind of traffic', async (t) => {
  const dir = tempDir(t, 'aap-chaos-equiv-');
  const file = path.join(dir, 'journal.jsonl');
  const rt = await start(t, { journalFile: file });
  const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
  const events: string[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    if (!('type' in JSON.parse(text))) events.push(text + '\n');
  });
  await once(ws, 'open');
  t.teardown(() => ws.close());
  const heard: JournalEntry[] = [];
  rt.events.on('request', (entry: JournalEntry) => heard.push(entry));

  await drive(rt.url);
  await waitFor(() => rt.journal.size >= TRAFFIC_LINES && events.length >= TRAFFIC_LINES);
  await rt.journal.flush();

  const ring = rt.journal.lines();
  t.equal(ring.length, TRAFFIC_LINES, 'one line per request');
  t.same(events, ring, 'an /events subscriber got the bytes the ring keeps');
  t.same((await readFile(file, 'utf8')).split(/(?<=\n)/), ring, 'the journal file holds the same bytes');
  t.same(
    heard.map((e) => JSON.stringify(e) + '\n'),
    ring,
    "a library listener's entries serialize to them",
  );
  const served = await request(`${rt.adminUrl}/journal`);
  t.same(served.body.toString('utf8'), ring.join(''), 'GET /journal sends them');
  t.same(
    rt.journal.all(),
    ring.map((l) => JSON.parse(l)),
    'and entries() parses them',
  );

  // The traffic reached the kinds it is meant to: each shows in the lines.
  const entries = rt.journal.all();
  const has = (what: string, pick: (e: JournalEntry) => boolean) => t.ok(entries.some(pick), what);
  has('a pass-through', (e) => e.source === 'dealer' && e.fired.length === 0 && e.outcome === 'result');
  has('an injected error', (e) => e.fired.includes('internal') && e.error_code === 'INTERNAL_ERROR' && e.reply_error !== undefined);
  has('an envelope modifier on an injected error', (e) => e.fired.includes('untidy') && e.fired.includes('untidy-error'));
  has('a patched reply', (e) => e.fired.includes('patched'));
  has('a rate-limit refusal', (e) => e.fired.includes('throttle') && e.error_code === 'RATE_LIMITED');
  has('a require refusal', (e) => e.fired.includes('needs-extension') && e.rpc_code === -32008);
  has('a lead, without its contact', (e) => e.skill === 'lead.submit' && e.idempotency_key === 'k-1' && e.request_hash !== undefined);
  has('a reset', (e) => e.unknown_cause === 'reset');
  has('a truncated reply', (e) => e.unknown_cause === 'truncated');
  has('malformed JSON from the proxy', (e) => e.unknown_cause === 'malformed_json');
  has('a gateway page', (e) => e.fired.includes('gateway') && e.status === 502);
  has('a payload with problems', (e) => (e.request_problems?.length ?? 0) > 0);
  for (const kind of ['not-json', 'not-jsonrpc', 'batch', 'oversized']) has(`a ${kind} body`, (e) => e.kind === kind);
  has('a stream', (e) => e.method === 'SendStreamingMessage' && e.fired.includes('slow-stream'));
  has('an agent card fetch', (e) => e.http_method === 'GET');
  t.notOk(ring.join('').includes('ada@example.com') || ring.join('').includes('Lovelace'), 'no line holds the customer contact');
});

t.test('a journal nobody reads during the traffic holds the same lines, read afterwards', async (t) => {
  const read = await start(t);
  const ws = new WebSocket(`${read.adminUrl.replace(/^http/, 'ws')}/events`);
  await once(ws, 'open');
  t.teardown(() => ws.close());
  await drive(read.url);
  await waitFor(() => read.journal.size >= TRAFFIC_LINES);

  const unread = await start(t);
  await drive(unread.url);
  await waitFor(() => unread.journal.size >= TRAFFIC_LINES);
  const served = (await request(`${unread.adminUrl}/journal`)).body.toString('utf8');
  t.same(served.split(/(?<=\n)/).map(withoutVolatile), read.journal.lines().map(withoutVolatile), 'the same lines but for ids, clocks and durations');
});

/** The skill data a request hash is taken of (canonical data is written by JSON.stringify itself). */
const isSkillData = (v: unknown): boolean => !!v && typeof v === 'object' && /\.request$/.test(String((v as { type?: unknown }).type)) && !('jsonrpc' in v);

/** Counts the line texts and request hashes five injected errors build, with the readers `attach` sets up. */
async function textsBuilt(t: Test, opts: RuntimeOptions, attach: (rt: Runtime) => Promise<void> = async () => {}): Promise<{ lines: number; hashed: number }> {
  const rt = await start(t, opts);
  await attach(rt);
  let lines = 0;
  let hashed = 0;
  await countStringify(
    (v) => {
      if (isJournalEntry(v)) lines++;
      else if (isSkillData(v)) hashed++;
      return false;
    },
    async () => {
      for (let i = 0; i < 5; i++)
        await request(`${rt.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-case': 'error' },
          body: skillRequest('inventory.search', {}, i),
        });
      await waitFor(() => rt.journal.size >= 5);
    },
  );
  const served = (await request(`${rt.adminUrl}/journal`)).body.toString('utf8').trimEnd().split('\n');
  t.equal(served.length, 5, 'GET /journal gets every line');
  t.ok(
    served.every((l) => JSON.parse(l).request_hash !== undefined),
    'each with its request hash',
  );
  return { lines, hashed };
}

// With no reader the ring keeps the entry by shape and writes the line when it is read
// (src/journal/entry-shape.ts); with readers, a request's text and hash are built once for all of them.
t.test('with no reader, a request pays for neither its line text nor its request hash', async (t) => {
  t.same(await textsBuilt(t, {}), { lines: 0, hashed: 0 }, 'no line text and no request hash built, and still every line served');
});

t.test('with readers, a request builds its line text and its request hash once, shared by all of them', async (t) => {
  const dir = tempDir(t, 'aap-chaos-equiv-once-');
  const everyReader = await textsBuilt(t, { journalFile: path.join(dir, 'journal.jsonl') }, async (rt) => {
    const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
    await once(ws, 'open');
    t.teardown(() => ws.close());
    rt.events.on('request', () => {});
  });
  t.same(everyReader, { lines: 5, hashed: 5 }, 'with a file, an /events subscriber and a listener: one of each per request');
  for (const [reader, attach] of [
    [
      'an /events subscriber',
      async (rt: Runtime) => {
        const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
        await once(ws, 'open');
        t.teardown(() => ws.close());
      },
    ],
    ['a library listener', async (rt: Runtime) => void rt.events.on('request', () => {})],
  ] as const) {
    t.same(
      await textsBuilt(t, {}, attach),
      { lines: reader === 'a library listener' ? 0 : 5, hashed: 5 },
      `${reader} alone: the hash at once${reader === 'a library listener' ? ', no text' : ', and the text it is sent'}`,
    );
  }
});
