// A journal kept by shape (src/journal/entry-shape.ts) must read back, byte for byte, the lines the
// proxy writes at once. A generated population of requests is journaled both ways with the
// proxy's own builders: entries built whole, and entries built without their request facts with
// the body kept to take them from; the lines must be the same text, in any order and mix.
import t from 'tap';
import { boundJournalEntry } from '../../src/common/bounds.js';
import { buildJournalEntry, type DecidedFaults, type ReplyObservation, type RequestCircumstances } from '../../src/journal/build-entry.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { Journal } from '../../src/journal/journal.js';
import { classifyRequest } from '../../src/protocol/classify.js';

/** A small deterministic generator, so a failure names the seed that shows it. */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

type Pick = ReturnType<typeof generator>['pick'];

const LONG = 'L'.repeat(300);
const ODD_TEXT = ['plain', 'ünïcödé €', 'lone \ud800 surrogate', 'quote " and \\ backslash', 'control \u0001', LONG];

/** Skill data of every kind: valid, with schema problems (a few or very many), with odd text. */
function skillData(pick: Pick, skill: string): Record<string, unknown> {
  switch (skill) {
    case 'inventory.search':
      return pick([
        {},
        { filters: { make: ['Honda'] }, pagination: { limit: 10 } },
        { filters: { make: ['Honda'] }, year_min: 'soon' },
        { filters: { make: Array.from({ length: 80 }, (_, i) => i) } },
        { query: pick(ODD_TEXT), b: 1, a: 2 },
      ]);
    case 'inventory.vehicle':
      return pick([{ vin: pick(['1HGCM82633A004352', LONG, 'lone \udc00']) }, { stock: 'S-1' }, { vehicle_id: 7 }, {}]);
    case 'lead.submit':
      return { customer: { name: 'Ada Lovelace', email: 'ada@example.com' }, consent: { contact: true }, idempotency_key: pick(['k-1', LONG]) };
    default:
      return pick([{}, { note: pick(ODD_TEXT) }]);
  }
}

/** A request body: a skill call of any skill (the five, an unknown one), or JSON-RPC with no skill, or not JSON-RPC at all. */
function body(pick: Pick, n: number): string {
  const id = pick<string | number | null>([n, `id-${n}`, null, LONG, 'lone \ud800 id']);
  const shape = pick(['skill', 'skill', 'skill', 'skill', 'no-skill', 'not-jsonrpc', 'exact-id']);
  if (shape === 'no-skill') return JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't-1' } });
  if (shape === 'not-jsonrpc') return '{"hello": "world"}';
  const skill = pick(['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit', 'custom.skill']);
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ data: { type: `${skill}.request`, ...skillData(pick, skill) } }] } },
  });
  // A number JavaScript would write back differently keeps the buyer's own bytes (src/protocol/rpc-id.ts).
  return shape === 'exact-id' ? text.replace(/^\{"jsonrpc":"2.0","id":[^,]*,/, '{"jsonrpc":"2.0","id":1.50,') : text;
}

function decision(pick: Pick): DecidedFaults {
  return pick<DecidedFaults>([
    { matched: [], fired: [], sentences: [], applied: [] },
    { matched: ['boom'], fired: ['boom'], sentences: ['INTERNAL_ERROR'], applied: [{ rule: 'boom', effect: 'error' }] },
    { matched: ['slow', 'boom'], fired: ['slow'], sentences: [`delay ${Math.floor(pick([1, 2, 3]))} ms`], applied: [{ rule: 'slow', effect: 'delay' }] },
    {
      matched: ['limit'],
      fired: ['limit'],
      sentences: [`RATE_LIMITED, retry after ${pick([100, 2000, 1999])} ms`],
      applied: [{ rule: 'limit', effect: 'rate_limit' }],
    },
  ]);
}

function reply(pick: Pick, n: number): ReplyObservation {
  const error = {
    code: -32603,
    message: pick(['Internal error', LONG]),
    data: {
      code: 'INTERNAL_ERROR',
      error_id: `err_${n}`,
      retryable: pick([true, false]),
      details: pick([{}, { retry_after_ms: n }, { deep: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } } }]),
    },
  };
  return pick<ReplyObservation>([
    { source: 'dealer', notes: [], upstreamStatus: 200, upstreamMs: n / 7, body: 'jsonrpc-result' as ReplyObservation['body'] },
    { source: 'injected', notes: [], error },
    { source: 'dealer', notes: [pick(ODD_TEXT)], error, upstreamStatus: 200, upstreamMs: 3.14159 },
    { source: 'proxy', notes: ['upstream unreachable'], lost: 'reset' as ReplyObservation['lost'] },
  ]);
}

/** One request of the population, journaled with its facts at once (`whole`) and left for later (`later`, with the body). */
function journaled(seed: number, n: number): { whole: JournalEntry; later: JournalEntry; body: Buffer; factsLater: boolean } {
  const { pick } = generator(seed * 7919 + n);
  const bytes = Buffer.from(body(pick, n));
  const request = classifyRequest({
    method: 'POST',
    url: pick(['/a2a', `/a2a?x=${n}`, `/${LONG}`]),
    headers: { 'content-type': 'application/json' },
    clientIp: '127.0.0.1',
    body: bytes,
  });
  const faults = decision(pick);
  const observed = reply(pick, n);
  const at: RequestCircumstances = {
    startedAt: 1_760_000_000_000 + n * 3,
    arrival: n,
    durationMs: n / 3,
    client: pick(['127.0.0.1', '::1']),
    clientKey: 'ip',
    status: pick([200, 502, 0]),
    aborted: pick([false, false, true]),
    dryRun: false,
    profile: pick(['1.3', '2.0'] as const),
    extensionUri: 'https://example.com/aap/v1',
    session: pick([undefined, undefined, 's-1']),
  };
  const whole = boundJournalEntry(buildJournalEntry(request, faults, observed, at));
  const later = boundJournalEntry(buildJournalEntry(request, faults, observed, { ...at, factsLater: true }));
  // An id is random past its time and arrival: the two builds of one request get the same one.
  later.id = whole.id;
  return { whole, later, body: bytes, factsLater: whole.request_hash !== undefined && later.request_hash === undefined };
}

/** The two texts around their first difference. */
function whereTheyDiffer(got: string, expected: string): string {
  let i = 0;
  while (i < got.length && got[i] === expected[i]) i++;
  return `at ${i}: got …${got.slice(Math.max(0, i - 80), i + 80)}… expected …${expected.slice(Math.max(0, i - 80), i + 80)}…`;
}

t.test('a generated population reads back the lines written at once, byte for byte, kept by shape or as text', async (t) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const count = 600;
    const requests = Array.from({ length: count }, (_, n) => journaled(seed, n));
    const expected = requests.map((r) => JSON.stringify(r.whole) + '\n');
    const byShape = new Journal({ ringSize: count });
    for (const r of requests) byShape.onRequestDone(r.later, r.factsLater ? r.body : undefined);
    const got = byShape.lines();
    const differing = got.findIndex((line, i) => line !== expected[i]);
    t.equal(
      differing,
      -1,
      `seed ${seed}: every line the same bytes${differing < 0 ? '' : `; first differing, request ${differing}: ${whereTheyDiffer(got[differing]!, expected[differing]!)}`}`,
    );
    t.equal(got.length, count);
    t.ok(
      requests.filter((r) => r.factsLater).length > count / 4,
      `seed ${seed}: many requests had their facts left for later (${requests.filter((r) => r.factsLater).length})`,
    );
    // The same entries built whole journal the same lines too (a lead's, a journal fed by a library).
    const whole = new Journal({ ringSize: count });
    for (const r of requests) whole.onRequestDone(r.whole);
    t.same(whole.lines(), expected, `seed ${seed}: entries built whole, kept by shape, read back the same`);
    // Reading by cursor works on lines kept by shape: their ids are read without writing them.
    const cursor = expected.length >> 1;
    t.same(byShape.lines({ since: requests[cursor]!.whole.id }), expected.slice(cursor + 1), `seed ${seed}: since=<id> gives the lines after it`);
    t.same(
      byShape.entries({ last: 3 }),
      expected.slice(-3).map((l) => JSON.parse(l)),
      `seed ${seed}: entries() parses them`,
    );
  }
});

t.test('the lines do not depend on the order or mix of the traffic (metamorphic)', async (t) => {
  const requests = Array.from({ length: 400 }, (_, n) => journaled(11, n));
  const textOf = new Map(requests.map((r) => [r.whole.id, JSON.stringify(r.whole) + '\n']));
  const { next } = generator(99);
  const shuffled = [...requests].sort(() => next() - 0.5);
  const journal = new Journal({ ringSize: 400 });
  for (const r of shuffled) journal.onRequestDone(r.later, r.factsLater ? r.body : undefined);
  const lines = journal.lines();
  t.equal(lines.length, 400);
  t.ok(
    lines.every((line) => line === textOf.get(JSON.parse(line).id)),
    'each line is the text of its entry built whole, whatever came before it',
  );
});

t.test('a lead is never kept with its body, and the customer contact is in no kept byte', async (t) => {
  const journal = new Journal({ ringSize: 100 });
  let leads = 0;
  for (let n = 0; n < 300 && leads < 20; n++) {
    const r = journaled(21, n);
    if (r.whole.skill !== 'lead.submit') continue;
    leads++;
    t.notOk(r.factsLater, 'a lead gets its facts at once');
    journal.onRequestDone(r.later);
  }
  t.equal(leads, 20);
  t.notOk(journal.lines().join('').includes('ada@example.com'), 'no line names the contact');
});
