// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// Record the embedded mock dealer through the proxy, then replay it: the same answers with the
// live ids, SSE events at their recorded gaps, no request header or customer contact on disk,
// each --on-miss mode, and a scenario's RATE_LIMITED on top of the replay.
import t from 'tap';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jsonDifferences } from '../../src/replay/json-diff.js';
import { scrubReply } from '../../src/protocol/personal-data.js';
import { readRecording } from '../../src/recording/reader.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { waitFor } from '../helpers/servers.js';
import { exam } from '../helpers/exam.js';
import { startMockDealer } from '../../src/mock/index.js';
import { CUSTOMER, LEAD, SECRET_HEADERS, gaps, mockDealer, rpc, runtime, skillBody, streamEvents } from '../helpers/recording.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-replay-');
const file = path.join(dir, 'dealer.jsonl');
/** The mock's gap between stream events: wide, so timing holds on a loaded machine. */
const GAP_MS = 150;

/** Every request the buyer sends, recorded then replayed: all five skills, an error, a repeated lead, a stream. */
function requests(vin: string, idPrefix: string) {
  return [
    skillBody('dealer.information', {}, `${idPrefix}1`),
    skillBody('inventory.facets', { facets: ['make'] }, `${idPrefix}2`),
    skillBody('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 2 } }, `${idPrefix}3`, { contextId: `ctx-${idPrefix}` }),
    skillBody('inventory.vehicle', { vin }, `${idPrefix}4`),
    skillBody('inventory.vehicle', { vin: '1HGCM82633A00NOPE' }, `${idPrefix}5`),
    skillBody('lead.submit', { ...LEAD, vehicle_of_interest: { vin } }, `${idPrefix}6`),
    skillBody('lead.submit', { ...LEAD, vehicle_of_interest: { vin } }, `${idPrefix}7`),
  ];
}
const STREAM = (id: string) => skillBody('dealer.information', {}, id, { method: 'SendStreamingMessage' });

/** A live answer as a recording keeps it: the dealer's own phone numbers (dealer.information) get pseudonyms too. */
const asRecorded = (reply: unknown) => scrubReply(reply, new Map());

const recorded = await (async () => {
  const mock = await mockDealer(t, { streamGapMs: GAP_MS });
  const proxy = await runtime(t, { target: mock.url, record: file });
  const vin = mock.dealer.inventory.firstAvailable().vin;
  const replies = [];
  for (const body of requests(vin, 'live-')) replies.push((await rpc(proxy.url, body, SECRET_HEADERS)).json);
  const stream = await streamEvents(proxy.url, STREAM('live-s'), SECRET_HEADERS);
  await fetch(`${proxy.url}/.well-known/agent-card.json`, { headers: SECRET_HEADERS });
  await proxy.close();
  return { vin, replies, stream, mockUrl: mock.url };
})();

t.test('the recording keeps every exchange and the card, without request headers or customer contact', async (t) => {
  const text = readFileSync(file, 'utf8');
  const recording = await readRecording(file);
  t.ok(recording.card, 'the agent card is recorded');
  t.same(
    recording.exchanges.map((e) => [e.request.method, e.request.skill]),
    [
      ['SendMessage', 'dealer.information'],
      ['SendMessage', 'inventory.facets'],
      ['SendMessage', 'inventory.search'],
      ['SendMessage', 'inventory.vehicle'],
      ['SendMessage', 'inventory.vehicle'],
      ['SendMessage', 'lead.submit'],
      ['SendMessage', 'lead.submit'],
      ['SendStreamingMessage', 'dealer.information'],
    ],
  );
  t.match(recording.exchanges[4]!.reply.body, { error: { data: { code: 'VEHICLE_NOT_FOUND' } } }, 'the error reply is recorded');
  t.equal(recording.exchanges[7]!.reply.events?.length, 4, 'each SSE event is recorded');
  // Recording tees the stream: the buyer got each event when the dealer sent it, not at the end.
  t.ok(
    gaps(recorded.stream.map((e) => e.atMs)).every((g) => g > GAP_MS / 2),
    `while recording, the buyer's gaps: ${gaps(recorded.stream.map((e) => e.atMs)).map(Math.round)} ms`,
  );
  for (const secret of [...Object.values(SECRET_HEADERS), 'authorization', 'x-api-key', 'user-agent', 'a2a-version'])
    t.notMatch(text.toLowerCase(), secret.toLowerCase(), `no ${secret} in the file`);
  for (const personal of [CUSTOMER.email, CUSTOMER.phone, CUSTOMER.first_name, CUSTOMER.last_name])
    t.notOk(text.includes(personal), `no ${personal} in the file`);
  const customers = recording.exchanges.filter((e) => e.request.skill === 'lead.submit').map((e) => (e.request.part!.data as any).customer);
  t.match(customers[0], {
    email: /^customer-[0-9a-f]{10}@example\.invalid$/,
    phone: /^\+1555\d{7}$/,
    first_name: /^First-/,
    last_name: /^Last-/,
    preferred_contact: 'email',
  });
  t.same(customers[1], customers[0], 'the same customer gets the same pseudonyms');
});

t.test('a replay answers as the dealer did, with the live ids', async (t) => {
  const replay = await runtime(t, { target: `replay:${file}` });
  t.equal(replay.status().target, `replay:${file}`, '/status names the recording');
  const bodies = requests(recorded.vin, 'again-');
  for (const [i, body] of bodies.entries()) {
    const { json } = await rpc(replay.url, body);
    t.same(jsonDifferences(asRecorded(recorded.replies[i]), json), [], `request ${i + 1}: every non-volatile field as recorded`);
    t.equal(json.id, body.id, `request ${i + 1}: the live JSON-RPC id is echoed`);
  }
  const search = (
    await rpc(replay.url, skillBody('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 2 } }, 42, { contextId: 'ctx-mine' }))
  ).json;
  t.equal(search.id, 42, 'a numeric id stays a number');
  t.equal(search.result.message.contextId, 'ctx-mine', 'the live contextId is echoed');

  // The recorded lead answers come back in recorded order: received, then duplicate.
  const lead = { ...LEAD, vehicle_of_interest: { vin: recorded.vin } };
  const third = (await rpc(replay.url, skillBody('lead.submit', lead, 'l3'))).json;
  t.equal(third.result.message.parts[0].data.data.status, 'duplicate', 'past the last recorded match, the last one is served again');

  // The real SDK client reads the recorded card (rewritten to the proxy) and gets the recorded answer.
  const buyer = await createBuyer(replay.url);
  const reply = await sendSkill(buyer, 'inventory.vehicle', { vin: recorded.vin });
  t.ok(reply.ok && (reply.data.data as any).vin === recorded.vin, 'an SDK buyer is answered from the recording');
});

/**
 * When each event of three replayed streams arrived, counted from the request's send, the median
 * of the three: the buyer, the proxy and the replay share one process here, so one stall on a
 * busy machine would otherwise count as drift.
 */
async function medianArrivals(url: string, first?: { atMs: number }[]): Promise<number[]> {
  const runs = [first ?? (await streamEvents(url, STREAM('m-1'))), await streamEvents(url, STREAM('m-2')), await streamEvents(url, STREAM('m-3'))];
  return runs[0]!.map((_, i) => runs.map((r) => r[i]!.atMs).sort((a, b) => a - b)[1]!);
}

/**
 * The replay sends each event at its recorded offset from the request's start, divided by the
 * speed. So an event never comes before its time (a timer does not fire early, and the buyer's
 * clock starts before the replay's), and comes at most LATE_MS after it: the lateness a loaded
 * machine can add to one delivery. Checking arrival times rather than gaps keeps one late event
 * from counting twice (its own gap long, the next one short).
 */
const LATE_MS = 100;

t.test('SSE events keep their recorded offsets, scaled by --speed', async (t) => {
  const recording = await readRecording(file);
  const offsets = recording.exchanges[7]!.reply.events!.map((e) => e.offset_ms);
  t.ok(
    gaps(offsets).every((g) => g > GAP_MS / 2),
    `recorded gaps ${gaps(offsets).map(Math.round)} ms`,
  );

  const normal = await runtime(t, { target: `replay:${file}` });
  const events = await streamEvents(normal.url, STREAM('s-1'));
  t.equal(events.length, 4);
  t.ok(
    events.every((e) => e.data.id === 's-1'),
    'every event carries the live id',
  );
  events.forEach((e, i) => t.same(jsonDifferences(asRecorded(recorded.stream[i]!.data), e.data), [], `event ${i + 1} as recorded`));
  const onTime = (speed: number, arrivals: number[]) =>
    arrivals.forEach((at, i) => {
      const due = offsets[i]! / speed;
      t.ok(at >= due - 1 && at <= due + LATE_MS, `speed ${speed}: event ${i + 1} at ${Math.round(at)} ms, due at ${Math.round(due)} ms`);
    });
  onTime(1, await medianArrivals(normal.url, events));

  const fast = await runtime(t, { target: `replay:${file}`, replay: { speed: 2 } });
  onTime(2, await medianArrivals(fast.url));
});

const TOYOTA = (id: number) => skillBody('inventory.search', { filters: { make: ['Toyota'] }, pagination: { limit: 2 } }, id);

t.test('on-miss error: a valid AAP error naming what was not found and the nearest recorded request', async (t) => {
  const replay = await runtime(t, { target: `replay:${file}` });
  const { json } = await rpc(replay.url, TOYOTA(7));
  t.equal(json.id, 7);
  t.equal(json.error.code, -32603);
  t.match(json.error.message, /no recorded reply for SendMessage inventory\.search/);
  t.match(json.error.message, /nearest recorded request: exchange 3 \(SendMessage inventory\.search\), which differs at \/filters\/make\/0/);
  t.match(json.error.data, {
    code: 'INTERNAL_ERROR',
    retryable: false,
    details: { replay_miss: { skill: 'inventory.search', nearest: { exchange: 3, differs_at: ['/filters/make/0'] } } },
  });
  t.same(envelopeProblems('1.3', json), [], 'the envelope validates under the profile');
});

t.test('on-miss nearest: the nearest recorded reply', async (t) => {
  const replay = await runtime(t, { target: `replay:${file}`, replay: { onMiss: 'nearest' } });
  const { json } = await rpc(replay.url, TOYOTA(8));
  t.equal(json.id, 8);
  t.same(jsonDifferences(recorded.replies[2], json), [], 'the Honda search answer, recorded');
});

t.test('--ignore: a pointer left out of matching', async (t) => {
  const replay = await runtime(t, { target: `replay:${file}`, replay: { ignore: ['/filters'] } });
  const { json } = await rpc(replay.url, TOYOTA(9));
  t.notOk(json.error, 'matched with /filters ignored');
  t.same(jsonDifferences(recorded.replies[2], json), []);
});

t.test('on-miss pass: forwarded to the live dealer, appended to the recording, then replayed', async (t) => {
  const spyFile = path.join(dir, 'spy.jsonl');
  copyFileSync(file, spyFile);
  const before = (await readRecording(spyFile)).exchanges.length;
  // Closed by the test itself, half-way: the second request must not need it.
  const live = await startMockDealer({ port: 0 });
  const replay = await runtime(t, { target: `replay:${spyFile}`, replay: { onMiss: 'pass', passTarget: live.url } });
  const first = (await rpc(replay.url, TOYOTA(10), SECRET_HEADERS)).json;
  t.equal(first.id, 10);
  t.ok(
    first.result.message.parts[0].data.data.vehicles.every((v: any) => v.make === 'Toyota'),
    'the live dealer answered',
  );
  await waitFor(() => readFileSync(spyFile, 'utf8').includes('"Toyota"'));
  await live.close();
  const second = (await rpc(replay.url, TOYOTA(11))).json;
  t.same(jsonDifferences(first, second), [], 'the passed exchange is replayed once the live dealer is gone');
  await replay.close();
  const after = await readRecording(spyFile);
  t.equal(after.exchanges.length, before + 1, 'one exchange appended');
  t.notMatch(readFileSync(spyFile, 'utf8'), SECRET_HEADERS.authorization, 'still no request header');
});

t.test('a RATE_LIMITED rule applies on top of a replay', async (t) => {
  const scenario = {
    scenario: 'throttled-replay',
    rules: [{ id: 'throttle', match: { skill: 'inventory.search' }, rate_limit: { limit: 1, window_ms: 60_000 } }],
  };
  const replay = await runtime(t, { target: `replay:${file}`, scenario });
  const body = (id: number) => skillBody('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 2 } }, id);
  const ok = (await rpc(replay.url, body(1))).json;
  t.same(jsonDifferences(recorded.replies[2], ok), [], 'the first search: the recorded answer');
  const limited = (await rpc(replay.url, body(2))).json;
  t.equal(limited.id, 2);
  t.equal(limited.error.code, -32002, "RATE_LIMITED under the recorded card's 1.3 profile");
  t.match(limited.error.data, { code: 'RATE_LIMITED', retryable: true, details: { retry_after_ms: Number } });
  t.equal(replay.journal.all().at(-1)?.error_code, 'RATE_LIMITED', 'journaled like any injected fault');
});

t.test('exam --target replay:FILE runs the buyer against the recording', async (t) => {
  const body = JSON.stringify(skillBody('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 2 } }, 1));
  // A buyer that exits 0 only when the recorded Honda search answer comes back.
  const buyer = `fetch(process.env.AAP_DEALER_URL + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} })
    .then((r) => r.json()).then((j) => process.exit(j.result && j.result.message.parts[0].data.data.vehicles[0].make === 'Honda' ? 0 : 1), () => process.exit(1));`;
  const run = await exam([
    '--target',
    `replay:${file}`,
    '--scenarios',
    'passthrough',
    '--require-exit-0',
    '--allow-incomplete',
    '--json',
    '--',
    process.execPath,
    '-e',
    buyer,
  ]);
  t.equal(run.code, 0, run.err);
  t.match(JSON.parse(run.out), { ok: true, scenarios: [{ scenario: 'passthrough', runs: [{ buyer: { exit_code: 0 } }] }] });
});
