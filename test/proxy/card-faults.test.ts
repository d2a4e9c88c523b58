// card: faults of the agent card through real sockets, with the @a2a-js/sdk client as the buyer
// that reads it: late, replaced by a 503, cut mid-JSON, patched, and stale.
import t, { type Test } from 'tap';
import { startMockDealer } from '../../src/mock/index.js';
import { startProxy, type StartedProxy } from '../../src/proxy/server.js';
import { createEngine } from '../../src/engine/engine.js';
import { loadScenarioText, formatProblem } from '../../src/scenario/load.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { request, startUpstream } from '../helpers/servers.js';

const CARD = '/.well-known/agent-card.json';

async function proxyWith(t: Test, yaml: string, target?: string): Promise<{ proxy: StartedProxy; journal: JournalEntry[] }> {
  const loaded = loadScenarioText(yaml, 'card.yaml');
  if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
  if (!target) {
    const mock = await startMockDealer({ port: 0 });
    t.teardown(() => mock.close());
    target = mock.url;
  }
  const proxy = await startProxy({ target, port: 0 });
  proxy.proxy.decider = createEngine(loaded.scenario, { seed: 1 });
  const journal: JournalEntry[] = [];
  proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
  t.teardown(() => proxy.close());
  return { proxy, journal };
}

t.test('delay: the SDK waits for a late card; JSON-RPC calls are not touched', async (t) => {
  const { proxy, journal } = await proxyWith(t, 'rules:\n  - id: slow-card\n    card: { delay: { ms: 400 } }\n');
  const started = performance.now();
  const buyer = await createBuyer(proxy.url);
  t.ok(performance.now() - started >= 390, 'createFromUrl waited for the card');
  const reply = await sendSkill(buyer, 'dealer.information');
  t.ok(reply.ok, 'the call went through the proxy');
  const card = journal.find((e) => e.path === CARD)!;
  const call = journal.find((e) => e.method === 'SendMessage')!;
  t.same(card.fired, ['slow-card']);
  t.same(card.effects, ['card: delay 400 ms']);
  t.same(call.fired, [], 'a card rule never meets a JSON-RPC call');
});

t.test('http: the SDK meets a 503 page instead of the card', async (t) => {
  const { proxy, journal } = await proxyWith(
    t,
    'rules:\n  - id: card-down\n    card: { http: { status: 503, headers: { content-type: text/html, retry-after: "3" }, body: "<h1>down</h1>" } }\n',
  );
  await t.rejects(createBuyer(proxy.url), 'creating the client fails');
  const raw = await request(proxy.url + CARD);
  t.equal(raw.status, 503);
  t.equal(raw.headers['retry-after'], '3');
  t.equal(raw.body.toString(), '<h1>down</h1>');
  t.equal(journal.at(-1)!.source, 'injected');
});

t.test('malformed_json: the SDK meets a card cut mid-JSON', async (t) => {
  const { proxy } = await proxyWith(t, 'rules:\n  - id: cut\n    card: { malformed_json: true }\n');
  await t.rejects(createBuyer(proxy.url), SyntaxError);
  const raw = await request(proxy.url + CARD);
  t.equal(raw.status, 200);
  t.equal(raw.headers['content-type'], 'application/json');
  t.throws(() => JSON.parse(raw.body.toString()));
});

t.test('patch: a skill dropped, streaming claimed, the extension optional; still pointed at the proxy', async (t) => {
  const { proxy, journal } = await proxyWith(
    t,
    [
      'rules:',
      '  - id: changed',
      '    card:',
      '      patch:',
      '        - { op: remove, path: /skills/4 }',
      '        - { op: replace, path: /capabilities/streaming, value: true }',
      '        - { op: replace, path: /capabilities/extensions/0/required, value: false }',
      '',
    ].join('\n'),
  );
  const buyer = await createBuyer(proxy.url);
  const card = await buyer.getAgentCard();
  t.same(
    card.skills.map((s) => s.id),
    ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle'],
    'lead.submit is gone',
  );
  t.equal(card.capabilities?.streaming, true);
  t.equal(card.capabilities?.extensions[0]?.required, false);
  t.equal(card.supportedInterfaces[0]?.url, `${proxy.url}/a2a`, 'the rewrite still applies after the patch');
  // The SDK believes the card: it streams, and the dealer (which does not) refuses with -32004.
  const events = buyer.sendMessageStream(
    (await import('@a2a-js/sdk')).SendMessageRequest.fromJSON({
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { type: 'dealer.information.request' } }] },
    }),
  );
  await t.rejects(events.next(), /-32004|not enabled/);
  t.ok(
    journal.some((e) => e.method === 'SendStreamingMessage'),
    'the buyer sent SendStreamingMessage through the proxy',
  );
});

t.test('patch: a changed interface URL keeps its new path but points at the proxy', async (t) => {
  const { proxy, journal } = await proxyWith(
    t,
    'rules:\n  - id: moved\n    card:\n      patch: [{ op: replace, path: /supportedInterfaces/0/url, value: "https://elsewhere.example/v2/a2a" }]\n',
  );
  const buyer = await createBuyer(proxy.url);
  t.equal((await buyer.getAgentCard()).supportedInterfaces[0]?.url, `${proxy.url}/v2/a2a`);
  await t.rejects(sendSkill(buyer, 'dealer.information'), 'the dealer has nothing at the new path');
  t.equal(journal.at(-1)!.path, '/v2/a2a', 'the buyer called the proxy, not elsewhere.example');
});

t.test('patch that does not apply: the card is served unchanged and the journal says why', async (t) => {
  const { proxy, journal } = await proxyWith(t, 'rules:\n  - id: bad\n    card: { patch: [{ op: remove, path: /no/such/thing }] }\n');
  const card = JSON.parse((await request(proxy.url + CARD)).body.toString());
  t.equal(card.skills.length, 5);
  t.match(journal.at(-1)!.notes, [/card patch not applied/]);
});

t.test('stale: the card of N minutes ago, or a fixed older copy; the rewrite applies to both', async (t) => {
  let version = 'v1';
  let base = '';
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: `Dealer ${version}`,
        description: 'd',
        version,
        supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: [],
        defaultOutputModes: [],
        skills: [],
      }),
    );
  });
  base = up.url;
  t.teardown(() => up.close());
  // 0.01 minutes = 600 ms: the time window under test.
  const { proxy, journal } = await proxyWith(t, 'rules:\n  - id: old\n    card: { stale: { minutes: 0.01 } }\n', up.url);
  const first = await createBuyer(proxy.url);
  t.equal((await first.getAgentCard()).version, 'v1');
  t.match(journal.at(-1)!.notes, [/no card seen 0.01 min ago; served the oldest one seen/]);
  version = 'v2';
  await new Promise((r) => setTimeout(r, 700));
  const fresh = JSON.parse((await request(proxy.url + CARD)).body.toString());
  t.equal(fresh.version, 'v1', 'the dealer now says v2, the buyer still gets the card of 600 ms ago');
  await new Promise((r) => setTimeout(r, 700));
  const later = await createBuyer(proxy.url);
  t.equal((await later.getAgentCard()).version, 'v2', 'once v2 is old enough, it is the one served');

  const fixed = await proxyWith(
    t,
    'rules:\n  - id: fixed\n    card:\n      stale:\n        card: { name: Old, description: o, version: "0.9", supportedInterfaces: [{ url: "https://old.example/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0" }], capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] }\n',
    up.url,
  );
  const card = await (await createBuyer(fixed.proxy.url)).getAgentCard();
  t.equal(card.version, '0.9');
  t.equal(card.supportedInterfaces[0]?.url, `${fixed.proxy.url}/rpc`);
});

t.test('http and malformed_json together are refused with the place named', async (t) => {
  const loaded = loadScenarioText('rules:\n  - id: both\n    card: { http: { status: 500 }, malformed_json: true }\n', 'both.yaml');
  t.notOk(loaded.ok);
  if (!loaded.ok)
    t.match(
      loaded.problems.map(formatProblem).join('\n'),
      /both\.yaml:3:\d+\s+\/rules\/0\/card\/malformed_json\s+card: http and malformed_json both replace the card/,
    );
});
