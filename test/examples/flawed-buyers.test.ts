// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// Buyers on the real @a2a-js/sdk client, each with exactly one flaw (or, once, none), through the
// proxy and the embedded mock dealer: the report must name the flaw, and only the flaw.
import t, { type Test } from 'tap';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { runReportCommand } from '../../src/report/command.js';
import { startChaos, type Chaos } from '../../src/index.js';
import type { CheckName, Report, Verdict } from '../../src/report/report.js';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import { createBuyer, requestOptions, sendSkill, skillRequestJson, type Buyer } from '../helpers/sdk-buyer.js';
import { tempDir } from '../helpers/temp-dir.js';

async function chaosWith(t: Test, scenario: string, streaming = false): Promise<Chaos> {
  const chaos = await startChaos({ scenario, mock: { streaming } });
  t.teardown(() => chaos.close());
  return chaos;
}

/** Waits until `count` JSON-RPC lines are journaled (the last reply may still be finishing). */
async function journaled(chaos: Chaos, count: number): Promise<void> {
  for (let i = 0; i < 500 && chaos.journal().filter((e) => e.method !== undefined).length < count; i++) await sleep(10);
}

function verdict(report: Report, check: CheckName, client = report.clients[0]): Verdict | undefined {
  return report.checks.find((c) => c.check === check && c.client === client)?.verdict;
}

/** Calls that may fail any way the proxy can make them fail; the buyer's own logic decides what next. */
async function attempt<T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

const consent = {
  granted_at: '2026-01-02T10:00:00Z',
  allowed_channels: ['email'],
  consent_text: 'I agree to be contacted about this vehicle.',
  scope: ['lead_submission'],
};
const lead = (key: string) => ({
  idempotency_key: key,
  customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+15555550123', preferred_contact: 'email' },
  consent,
  source_agent: { name: 'flawed-buyer', url: 'https://buyer.example' },
});

const ONE_FAULT_ON_LEADS = (effect: string) => `scenario: one-bad-lead-reply
rules:
  - id: bad-lead-reply
    match: { skill: lead.submit }
    when: { times: 1 }
    ${effect}
`;

for (const [flaw, effect] of [
  ['a malformed reply', 'network: malformed_json'],
  ['an HTML 502', 'http: { status: 502, headers: { content-type: text/html }, body: "<html><h1>502 Bad Gateway</h1></html>" }'],
  ['a connection reset', 'network: reset'],
] as const) {
  t.test(`a buyer that picks a new idempotency_key after ${flaw}: idempotency FAILs`, async (t) => {
    const chaos = await chaosWith(t, ONE_FAULT_ON_LEADS(effect));
    const buyer = await createBuyer(chaos.url);
    const first = await attempt(() => sendSkill(buyer, 'lead.submit', lead('key-1')));
    t.notOk(first.ok && first.value.ok, 'the first lead got no usable answer');
    await sleep(300);
    await attempt(() => sendSkill(buyer, 'lead.submit', lead('key-2'))); // the flaw: a fresh key
    await journaled(chaos, 2);
    const report = chaos.report();
    t.equal(verdict(report, 'idempotency'), 'FAIL');
    t.match(report.checks.find((c) => c.check === 'idempotency')!.explanation, /new idempotency_key after/);
    t.equal(verdict(report, 'backoff'), 'PASS', 'it did wait before the one retry');
  });
}

t.test('a buyer that retries a stream error at once: backoff FAILs', async (t) => {
  const chaos = await chaosWith(
    t,
    'scenario: broken-streams\nrules:\n  - id: broken\n    match: { method: SendStreamingMessage }\n    stream: { error_after: 1 }\n',
    true,
  );
  const buyer = await createBuyer(chaos.url);
  const request = SendMessageRequest.fromJSON(skillRequestJson('dealer.information'));
  for (let i = 0; i < 5; i++) {
    const streamed = await attempt(async () => {
      for await (const event of buyer.sendMessageStream(request, requestOptions({ extensionUri: AAP_EXTENSION_URI_1_3 }))) void event;
    });
    t.notOk(streamed.ok, `attempt ${i + 1} ended with the stream error`);
    // the flaw: no wait at all
  }
  await journaled(chaos, 5);
  const lines = chaos.journal().filter((e) => e.method === 'SendStreamingMessage');
  t.ok(
    lines.every((e) => e.error_code === 'INTERNAL_ERROR' && e.error_in_stream),
    'each stream error is journaled with its code',
  );
  const report = chaos.report();
  t.equal(verdict(report, 'backoff'), 'FAIL');
  // Four retries, sent as soon as each error arrives; how many of them land within the timing
  // tolerance depends on how busy the machine is, so the count is not part of the claim.
  t.match(
    report.checks.find((c) => c.check === 'backoff')!.explanation,
    /(retried at once [1-4] times?|the waits did not grow exponentially) in 1 retry chain/,
  );
});

t.test('a buyer that activates another URI than the -32008 named: activation FAILs, also from the file without flags', async (t) => {
  const dir = tempDir(t, 'aap-chaos-activation-');
  const journalFile = path.join(dir, 'journal.jsonl');
  const chaos = await startChaos({
    scenario: 'scenario: needs-extension\nrules:\n  - id: needs-extension\n    match: { method: SendMessage }\n    require: { extension: true }\n',
    journalFile,
  });
  t.teardown(() => chaos.close());
  const buyer = await createBuyer(chaos.url);
  const refused = await sendSkill(buyer, 'dealer.information');
  t.equal(refused.ok ? undefined : refused.envelopeCode, -32008);
  await sendSkill(buyer, 'dealer.information', {}, { extensionUri: AAP_EXTENSION_URI_2_0_DRAFT }); // the flaw: an AAP URI, not the named one
  await journaled(chaos, 2);
  const report = chaos.report();
  t.equal(verdict(report, 'activation'), 'FAIL');
  t.match(report.checks.find((c) => c.check === 'activation')!.explanation, AAP_EXTENSION_URI_1_3);
  await chaos.close();
  const fromFile = JSON.parse((await runReportCommand(journalFile, { json: true })).output) as Report;
  t.equal(verdict(fromFile, 'activation'), 'FAIL', '`aap-chaos report FILE` needs no --extension-uri');
});

t.test('a buyer with full-jitter exponential backoff: backoff PASSes', async (t) => {
  const chaos = await chaosWith(
    t,
    'scenario: flaky-search\nrules:\n  - id: flaky\n    match: { skill: inventory.search }\n    when: { times: 4 }\n    error: INTERNAL_ERROR\n',
  );
  const buyer = await createBuyer(chaos.url);
  // Draws of "random between 0 and base·2^n" (base 100 ms), fixed so the test is repeatable; the
  // second wait is shorter than the first, as full jitter allows.
  const draws = [0.9, 0.1, 0.7, 0.2, 0.5];
  const random = () => draws.shift()!;
  let reply = await sendSkill(buyer, 'inventory.search', { pagination: { limit: 1 } });
  for (let n = 0; !reply.ok && n < 5; n++) {
    await sleep(random() * 100 * 2 ** n);
    reply = await sendSkill(buyer, 'inventory.search', { pagination: { limit: 1 } });
  }
  t.ok(reply.ok, 'the search finally succeeded');
  await journaled(chaos, 5);
  const report = chaos.report();
  t.equal(verdict(report, 'backoff'), 'PASS', report.checks.find((c) => c.check === 'backoff')!.explanation);
  t.equal(report.summary.fail, 0);
});

/** A buyer whose every request carries `x-buyer-id`, as two agents behind one gateway would. */
async function buyerWithId(url: string, id: string): Promise<Buyer> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-buyer-id', id);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
  ).createFromUrl(url);
}

t.test('two clients behind one address are graded apart, by the header the rules key on', async (t) => {
  const chaos = await chaosWith(
    t,
    'scenario: per-buyer-limit\nrules:\n  - id: per-buyer\n    key: "header:x-buyer-id"\n    match: { skill: inventory.search }\n    rate_limit: { limit: 1, window_ms: 600 }\n',
  );
  const [a, b] = [await buyerWithId(chaos.url, 'buyer-a-secret'), await buyerWithId(chaos.url, 'buyer-b-secret')];
  const search = (buyer: Buyer) => sendSkill(buyer, 'inventory.search', { pagination: { limit: 1 } });
  t.ok((await search(a)).ok && (await search(b)).ok, 'each buyer gets its first search');
  const limitedA = await search(a);
  const limitedB = await search(b);
  t.ok(!limitedA.ok && !limitedB.ok, 'each is rate-limited on its own key');
  // Each buyer waits out its own hint (at most the window), so alone each is well behaved.
  await sleep(620);
  t.ok((await search(a)).ok);
  t.ok((await search(b)).ok);
  await journaled(chaos, 6);
  const report = chaos.report();
  t.equal(report.client_key, 'header:x-buyer-id', 'the report says which key it used');
  t.equal(report.clients.length, 2);
  t.ok(
    report.clients.every((c) => /^key:[0-9a-f]{12}$/.test(c)),
    'clients are hashed keys',
  );
  t.notMatch(JSON.stringify(report), /buyer-[ab]-secret/);
  for (const client of report.clients) {
    t.equal(verdict(report, 'retry-after', client), 'PASS', `retry-after for ${client}`);
    t.equal(verdict(report, 'no-storm', client), 'PASS', `no-storm for ${client}`);
  }
});

t.test('a buyer that fixes one listed problem per round trip: validation-fix FAILs, naming what it left broken', async (t) => {
  const chaos = await chaosWith(t, 'scenario: clean\nrules: []\n');
  const buyer = await createBuyer(chaos.url);
  const refused = await sendSkill(buyer, 'inventory.search', { filters: { year_min: 'new' }, pagination: { limit: 'ten' } });
  t.notOk(refused.ok, 'the mock dealer refuses the search');
  const listed = chaos.journal().find((e) => e.method !== undefined)?.listed_problems;
  t.same(listed, ['/filters/year_min', '/pagination/limit'], 'the journal keeps every problem the dealer listed');
  // the flaw: it fixes the first problem only and tries again
  await sendSkill(buyer, 'inventory.search', { filters: { year_min: 2020 }, pagination: { limit: 'ten' } });
  await sendSkill(buyer, 'inventory.search', { filters: { year_min: 2020 }, pagination: { limit: 10 } });
  await journaled(chaos, 3);
  const report = chaos.report();
  t.equal(verdict(report, 'validation-fix'), 'FAIL');
  t.match(report.checks.find((c) => c.check === 'validation-fix')!.explanation, /fixed 1 of 2 listed problems \(still broken: \/pagination\/limit\)/);
});

t.test('a buyer that fixes every listed problem at once: validation-fix PASSes', async (t) => {
  const chaos = await chaosWith(t, 'scenario: clean\nrules: []\n');
  const buyer = await createBuyer(chaos.url);
  await sendSkill(buyer, 'inventory.search', { filters: { year_min: 'new' }, pagination: { limit: 'ten' } });
  t.ok((await sendSkill(buyer, 'inventory.search', { filters: { year_min: 2020 }, pagination: { limit: 10 } })).ok);
  await journaled(chaos, 2);
  t.equal(verdict(chaos.report(), 'validation-fix'), 'PASS');
});

t.test('a buyer that resends its idempotency_key with the changed lead after IDEMPOTENCY_CONFLICT: fresh-key FAILs', async (t) => {
  const chaos = await chaosWith(
    t,
    'scenario: conflict-once\nrules:\n  - id: conflict\n    match: { skill: lead.submit }\n    when: { times: 1 }\n    error: IDEMPOTENCY_CONFLICT\n',
  );
  const buyer = await createBuyer(chaos.url);
  const first = await sendSkill(buyer, 'lead.submit', lead('key-1'));
  t.notOk(first.ok, 'IDEMPOTENCY_CONFLICT');
  // the flaw: the same key, with a tweaked payload to "make it different"
  await sendSkill(buyer, 'lead.submit', { ...lead('key-1'), message: 'second try' });
  await journaled(chaos, 2);
  const report = chaos.report();
  t.equal(verdict(report, 'fresh-key'), 'FAIL');
  t.match(report.checks.find((c) => c.check === 'fresh-key')!.explanation, /sent a conflicting idempotency_key again 1 time/);
  t.equal(verdict(report, 'non-retryable'), 'PASS', 'the request did change, so non-retryable has nothing to say');
});
