// Three embedded mock dealers behind one proxy: each is reached under /d/NAME/ through its own
// rewritten card, by the real @a2a-js/sdk client and by plain HTTP; the journal names the dealer,
// and a rule with match: { dealer } touches only that dealer.
import t, { type Test } from 'tap';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import type { Scenario } from '../../src/scenario/load.js';
import { createBuyer, sendSkill, skillRequestJson } from '../helpers/sdk-buyer.js';

const SCENARIO: Scenario = {
  scenario: 'm2-throttled',
  rules: [{ id: 'm2-limit', match: { dealer: 'm2', skill: 'inventory.search' }, error: { code: 'RATE_LIMITED', retry_after_ms: 1000 } }],
};

async function start(t: Test, extra: Record<string, unknown> = {}): Promise<{ rt: Runtime; lines: JournalEntry[] }> {
  const rt = await startRuntime({ mockDealers: 3, port: 0, adminPort: 0, scenario: SCENARIO, ...extra });
  const lines: JournalEntry[] = [];
  rt.events.on('request', (e) => lines.push(e));
  t.teardown(() => rt.close());
  return { rt, lines };
}

t.test('each mock dealer has its own base, card, inventory and journal name', async (t) => {
  const { rt, lines } = await start(t);
  t.same(Object.keys(rt.dealerUrls!), ['m1', 'm2', 'm3']);
  const names = new Set<string>();
  for (const [name, base] of Object.entries(rt.dealerUrls!)) {
    t.equal(base, `${rt.url}/d/${name}/`, 'with the trailing slash the SDK resolves the card against');
    const card = (await (await fetch(`${base}.well-known/agent-card.json`)).json()) as { name: string; supportedInterfaces: { url: string }[] };
    names.add(card.name);
    for (const i of card.supportedInterfaces) t.ok(i.url.startsWith(base), `${name}'s card points back at its own base: ${i.url}`);
  }
  t.equal(names.size, 3, 'three dealer names');

  // The real SDK client, from each base URL: it reads that card and calls the URL the card names.
  const vins = new Map<string, string>();
  for (const name of ['m1', 'm3']) {
    const buyer = await createBuyer(rt.dealerUrls![name]!);
    const reply = await sendSkill(buyer, 'inventory.search', { pagination: { limit: 1 } });
    t.ok(reply.ok, `SDK search at ${name} succeeds`);
    if (reply.ok) vins.set(name, (reply.data as { data: { vehicles: { vin: string }[] } }).data.vehicles[0]!.vin);
  }
  t.not(vins.get('m1'), vins.get('m3'), 'each mock serves its own seeded inventory');
  const throttled = await sendSkill(await createBuyer(rt.dealerUrls!.m2!), 'inventory.search', { pagination: { limit: 1 } });
  t.equal(throttled.ok, false, 'the rule for m2 throttles m2 only');

  // A plain HTTP buyer that joins BASE and "/a2a" itself: the doubled slash is forgiven.
  const res = await fetch(`${rt.dealerUrls!.m3}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: skillRequestJson('inventory.search', { pagination: { limit: 1 } }) }),
  });
  t.equal(res.status, 200);
  t.ok(((await res.json()) as { result?: unknown }).result, 'plain HTTP reaches m3');

  const calls = lines.filter((e) => e.method === 'SendMessage');
  t.same(
    calls.map((e) => e.dealer),
    ['m1', 'm3', 'm2', 'm3'],
    'every journal line names its dealer',
  );
  t.same(
    calls.filter((e) => e.fired.length > 0).map((e) => e.dealer),
    ['m2'],
  );
  t.equal(calls[0]!.path, '/a2a', 'the dealer sees its own path, without the prefix');
  t.same(rt.status().dealers, rt.dealerUrls);

  const metrics = await (await fetch(`${rt.adminUrl}/metrics`)).text();
  t.match(metrics, /aap_chaos_dealer_requests_total\{dealer="m2",outcome="injected"\} 1\b/, "metrics count m2's injected reply");
  t.match(metrics, /aap_chaos_dealer_requests_total\{dealer="m3",outcome="dealer"\} \d+/);
  t.match(metrics, /aap_chaos_dealer_faults_injected_total\{dealer="m2",rule="m2-limit",effect="error"\} 1\b/);
});

t.test('each mock dealer is a dealership of its own: name, dealer id, VINs and lead store', async (t) => {
  const { rt } = await start(t);
  const call = async (name: string, skill: string, data: Record<string, unknown> = {}) => {
    const res = await fetch(`${rt.dealerUrls![name]}a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: skillRequestJson(skill, data) }),
    });
    return ((await res.json()) as { result: { message: { parts: { data: { data: any } }[] } } }).result.message.parts[0]!.data.data;
  };
  const infos = await Promise.all(['m1', 'm2', 'm3'].map((n) => call(n, 'dealer.information')));
  t.same(
    infos.map((i) => i.name),
    ['Mock Motors m1', 'Mock Motors m2', 'Mock Motors m3'],
    'dealer.information names each dealership after its mock',
  );
  t.ok(
    infos.every((i, n) => i.rooftops.every((r: { name: string }) => r.name.startsWith(`Mock Motors m${n + 1} `))),
    'and its rooftops',
  );
  // m2 is throttled by the scenario, so its stock is read from m1 and m3.
  const stock = await Promise.all(['m1', 'm3'].map((n) => call(n, 'inventory.search', { pagination: { limit: 1000 } })));
  const ids = stock.map((s) => new Set(s.vehicles.map((v: { dealer_id: string }) => v.dealer_id)));
  t.same(
    ids.map((s) => [...s]),
    [['mock-motors-m1'], ['mock-motors-m3']],
    'every vehicle carries its own dealer id',
  );
  const vins = stock.map((s) => new Set(s.vehicles.map((v: { vin: string }) => v.vin)));
  t.equal([...vins[0]!].filter((v) => vins[1]!.has(v)).length, 0, 'no VIN is listed at two dealers');

  const lead = (vin: string) => ({
    idempotency_key: 'same-key-everywhere',
    customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', preferred_contact: 'email' },
    consent: { granted_at: '2026-01-02T10:00:00Z', allowed_channels: ['email'], consent_text: 'I agree to be contacted.', scope: ['lead_submission'] },
    source_agent: { name: 'dealers-test' },
    vehicle_of_interest: { vin },
  });
  const [atM1, atM3] = await Promise.all([
    call('m1', 'lead.submit', lead(stock[0]!.vehicles[0].vin)),
    call('m3', 'lead.submit', lead(stock[1]!.vehicles[0].vin)),
  ]);
  t.not(atM1.status, 'duplicate', 'a lead at m1 is new there');
  t.not(atM3.status, 'duplicate', 'the same key at m3 is a new lead: each mock keeps its own leads');
  t.not(atM1.lead_id, atM3.lead_id);
});

t.test('a path that names no dealer gets a 404 listing the dealers', async (t) => {
  const { rt } = await start(t);
  for (const path of ['/a2a', '/d/nope/a2a', '/d/']) {
    const res = await fetch(`${rt.url}${path}`);
    t.equal(res.status, 404, path);
    t.same(((await res.json()) as { dealers: unknown }).dealers, rt.dealerUrls);
  }
});

t.test('bad dealer options are refused with one line naming the option and the value', async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ dealers: ['http://127.0.0.1:1'] }, /^option dealers \(flag --dealer\): "http:\/\/127.0.0.1:1" has no name/],
    [{ dealers: ['a=http://127.0.0.1:1', 'a=http://127.0.0.1:2'] }, /"a=http:\/\/127.0.0.1:2" names dealer a a second time/],
    [{ dealers: ['a=not a url'] }, /"a=not a url" has a URL that is not a URL/],
    [{ dealers: Array.from({ length: 65 }, (_, i) => `d${i}=http://127.0.0.1:1`) }, /is more than 64 dealers/],
    [{ mockDealers: 0 }, /option mockDealers \(flag --mock-dealers\): 0 is not a number of mock dealers from 1 to 64/],
    [{ dealers: ['a=http://127.0.0.1:1'], target: 'http://127.0.0.1:1' }, /cannot be combined with --target/],
    [{ dealers: ['m1=http://127.0.0.1:1'], mockDealers: 1 }, /uses the name of mock dealer m1/],
  ];
  for (const [opts, message] of cases) await t.rejects(startRuntime({ port: 0, adminPort: 0, ...opts }), message);
});

t.test('named dealers (--dealer NAME=URL) are fronted the same way, each with its own pool', async (t) => {
  const { startMockDealer } = await import('../../src/mock/index.js');
  const north = await startMockDealer({ port: 0, host: '127.0.0.1', seed: 7, name: 'North Motors' });
  const south = await startMockDealer({ port: 0, host: '127.0.0.1', seed: 8, name: 'South Motors' });
  t.teardown(async () => {
    await north.close();
    await south.close();
  });
  const rt = await startRuntime({ dealers: [`north=${north.url}`, `south=${south.url}/`], port: 0, adminPort: 0 });
  t.teardown(() => rt.close());
  t.same(Object.keys(rt.dealerUrls!), ['north', 'south']);
  for (const [name, mock] of [
    ['north', north],
    ['south', south],
  ] as const) {
    const card = (await (await fetch(`${rt.dealerUrls![name]}.well-known/agent-card.json`)).json()) as { name: string };
    t.equal(card.name, name === 'north' ? 'North Motors' : 'South Motors', `${name}'s own card`);
    t.equal(rt.router!.dealers.get(name)!.forwarder.origin, mock.url, `${name}'s own upstream pool`);
  }
  t.equal(rt.status().target, `${north.url}, ${south.url}`);
});
