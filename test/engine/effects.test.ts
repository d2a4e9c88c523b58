// Every effect, through real sockets: what the buyer sees, and what the journal says.
import t from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import { harness } from '../helpers/chaos-harness.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { seedViolations } from '../helpers/seed-envelope-check.js';
import { request, skillRequest } from '../helpers/servers.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';

t.test('error: the typed AAP envelope of the active profile, with overrides', async (t) => {
  for (const profile of ['1.3', '2.0'] as const) {
    const h = await harness(t, `rules:\n  - id: boom\n    error: VEHICLE_UNAVAILABLE\n    retryable: true\n    message: Sold an hour ago\n    details: { vin: V1 }\n`, { proxy: { profile } });
    const reply = await h.call('inventory.vehicle', { vin: 'V1' }, { id: 'abc' });
    const env = h.json(reply);
    t.equal(reply.status, 200, 'JSON-RPC errors travel on HTTP 200');
    t.same(envelopeProblems(profile, env), [], `valid ${profile} envelope`);
    t.equal(env.id, 'abc');
    const payload = profile === '1.3' ? env.error.data : env.error.data.find((d: any) => d.type === 'aap.error');
    t.match(payload, { code: 'VEHICLE_UNAVAILABLE', retryable: true, message: 'Sold an hour ago', details: { vin: 'V1' } });
    t.equal(h.upstream.seen.filter((s) => s.url === '/a2a').length, 0, 'the dealer was never called');
    t.match(h.journal[0], { source: 'injected', fired: ['boom'], error_code: 'VEHICLE_UNAVAILABLE', rpc_code: -32000, retryable: true });
  }
});

t.test('error object form and retry_after_ms', async (t) => {
  const h = await harness(t, `rules:\n  - id: slow-down\n    error: { code: RATE_LIMITED, retry_after_ms: 1234 }\n`);
  const env = h.json(await h.call('inventory.search'));
  t.equal(env.error.code, -32002);
  t.equal(env.error.data.details.retry_after_ms, 1234);
  t.equal(h.journal[0]!.retry_after_ms, 1234);
});

t.test('a2a_error: A2A errors by name, -32008 never bare', async (t) => {
  const h = await harness(t, `rules:\n  - id: nf\n    match: { skill: inventory.search }\n    a2a_error: TASK_NOT_FOUND\n  - id: ext\n    match: { skill: lead.submit }\n    a2a_error: EXTENSION_SUPPORT_REQUIRED\n`);
  const nf = h.json(await h.call('inventory.search'));
  t.equal(nf.error.code, -32001);
  t.equal(nf.error.data[0].reason, 'TASK_NOT_FOUND');
  const ext = h.json(await h.call('lead.submit'));
  t.equal(ext.error.code, -32008);
  t.ok(ext.error.message.includes(AAP_EXTENSION_URI_1_3) && ext.error.message.includes('A2A-Extensions'));
  t.same(envelopeProblems('1.3', ext), []);
});

t.test('require: -32008 without the extension, -32009 for absent, empty or wrong versions, pass when met', async (t) => {
  const h = await harness(t, `rules:\n  - id: policy\n    require: { extension: true, version: "1.0" }\n`, { proxy: { profile: '2.0', extensionUri: 'https://draft.autoagentprotocol.invalid/extensions/aap/latest' } });
  const uri = 'https://draft.autoagentprotocol.invalid/extensions/aap/latest';
  const missing = h.json(await h.call('inventory.search', {}, { headers: { 'a2a-version': '1.0' } }));
  t.equal(missing.error.code, -32008);
  t.same(missing.error.data[0].metadata, { extensionUri: uri, requiredHeader: 'A2A-Extensions' });
  for (const [name, headers] of [
    ['absent', {}],
    ['empty', { 'a2a-version': '' }],
    ['unsupported', { 'a2a-version': '0.3' }],
  ] as const) {
    const env = h.json(await h.call('inventory.search', {}, { headers: { ...headers, 'a2a-extensions': uri } }));
    t.equal(env.error.code, -32009, `${name} version → -32009`);
    t.same(envelopeProblems('2.0', env), []);
  }
  const ok = h.json(await h.call('inventory.search', {}, { headers: { 'a2a-version': '1.0', 'a2a-extensions': `other, ${uri}` } }));
  t.ok(ok.result, 'a request that meets the policy reaches the dealer');
});

t.test('rate_limit: the retry hint is the true wait, and a buyer that waits exactly that long succeeds', async (t) => {
  const h = await harness(t, `rules:\n  - id: throttle\n    rate_limit: { limit: 2, window_ms: 400 }\n`);
  t.ok(h.json(await h.call('inventory.search')).result);
  t.ok(h.json(await h.call('inventory.search')).result);
  const limited = h.json(await h.call('inventory.search'));
  t.equal(limited.error.data.code, 'RATE_LIMITED');
  const wait = limited.error.data.details.retry_after_ms;
  t.ok(wait > 0 && wait <= 400, `retry_after_ms ${wait} is within the window`);
  await new Promise((r) => setTimeout(r, wait));
  t.ok(h.json(await h.call('inventory.search')).result, 'waiting exactly retry_after_ms is enough');
});

t.test('http: raw non-JSON-RPC replies', async (t) => {
  const h = await harness(t, `rules:\n  - id: gw\n    http: { status: 503, headers: { Retry-After: "7", content-type: text/html }, body: "<h1>Service Unavailable</h1>" }\n`);
  const reply = await h.call('inventory.search');
  t.equal(reply.status, 503);
  t.equal(reply.headers['retry-after'], '7');
  t.equal(reply.body.toString(), '<h1>Service Unavailable</h1>');
});

t.test('network: reset, malformed_json, truncate_bytes and a bounded hang', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: reset, match: { skill: dealer.information }, network: reset }\n  - { id: bad, match: { skill: inventory.facets }, network: malformed_json }\n  - { id: cut, match: { skill: inventory.search }, network: { truncate_bytes: 20 } }\n  - { id: hang, match: { skill: lead.submit }, network: { hang_ms: 150 } }\n`,
  );
  await t.rejects(h.call('dealer.information'), 'reset breaks the connection');
  const bad = await h.call('inventory.facets', {}, { id: 4 });
  t.equal(bad.status, 200);
  t.throws(() => JSON.parse(bad.body.toString()), 'malformed JSON does not parse');
  t.match(bad.body.toString(), /^\{"jsonrpc":"2.0","id":4/);
  const truncated = await new Promise<{ bytes: number; complete: boolean }>((resolve) => {
    const req = http.request(h.proxy.url + '/a2a', { method: 'POST', agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('close', () => resolve({ bytes, complete: res.complete }));
    });
    req.on('error', () => {});
    req.end(skillRequest('inventory.search'));
  });
  t.same(truncated, { bytes: 20, complete: false }, 'exactly 20 bytes, then a broken reply');
  const started = Date.now();
  await t.rejects(h.call('lead.submit'), 'a hang ends with a closed connection');
  t.ok(Date.now() - started >= 140, 'held for the bound');
});

t.test('network: hang releases everything when the buyer gives up', async (t) => {
  const h = await harness(t, `rules:\n  - { id: hang, network: hang }\n`);
  const arrived = once(h.proxy.proxy.server, 'request');
  const req = http.request(h.proxy.url + '/a2a', { method: 'POST', agent: false });
  req.on('error', () => {});
  req.end(skillRequest('inventory.search'));
  await arrived;
  await new Promise((r) => setImmediate(r));
  req.destroy();
  await t.resolves(
    (async () => {
      while (h.journal.length === 0) await new Promise((r) => setImmediate(r));
    })(),
  );
  t.equal(h.journal[0]!.aborted, true, 'journaled as abandoned by the buyer');
  t.equal((h.proxy.proxy.decider as any).activeFaults(), 0, 'its fault slot was released');
});

t.test('delay: fixed latency before the reply', async (t) => {
  const h = await harness(t, `rules:\n  - { id: slow, delay: { ms: 120, distribution: fixed } }\n`);
  const started = performance.now();
  const env = h.json(await h.call('inventory.search'));
  t.ok(env.result);
  t.ok(performance.now() - started >= 115, 'at least the delay');
  t.same(h.journal[0]!.effects, ['delay 120 ms']);
});

t.test('patch: the dealer reply rewritten; a patch that does not apply is noted and the reply passes', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: churn\n    match: { skill: inventory.search }\n    patch:\n      - { op: replace, path: /result/message/parts/0/data/data/vehicles/0/status, value: pending }\n  - id: broken\n    match: { skill: inventory.facets }\n    patch:\n      - { op: replace, path: /result/nope/0, value: 1 }\n`,
  );
  const env = h.json(await h.call('inventory.search'));
  t.equal(env.result.message.parts[0].data.data.vehicles[0].status, 'pending');
  const untouched = h.json(await h.call('inventory.facets'));
  t.equal(untouched.result.message.parts[0].data.data.vehicles[0].status, 'available');
  t.match(h.journal[1]!.notes?.[0], /patch not applied/);
});

t.test('envelope: shuffled and padded data, synthesized and from the dealer', async (t) => {
  const h = await harness(t, `rules:\n  - id: lossy\n    envelope: { shuffle: true, unknown_detail: true }\n  - id: err\n    match: { skill: inventory.search }\n    error: INTERNAL_ERROR\n`, { proxy: { profile: '2.0' } });
  const env = h.json(await h.call('inventory.search'));
  const types = env.error.data.map((d: any) => d['@type']);
  t.equal(types.length, 3, 'ErrorInfo, the AAP payload and one unknown entry');
  t.ok(types.includes('type.googleapis.com/example.chaos.UnknownDetail'));
  t.equal(types[0], 'type.googleapis.com/google.rpc.ErrorInfo', 'ErrorInfo still leads, as the seed requires');
  t.not(types[1], 'https://autoagentprotocol.org/extensions/aap/error', 'the entries after it are reordered');
  t.same(seedViolations(env, '2.0'), [], 'the untidy envelope is still valid by the seed');
  t.ok(env.error.data.some((d: any) => d['@type'] === 'https://autoagentprotocol.org/extensions/aap/error' && d.code === 'INTERNAL_ERROR'), 'the AAP payload is still findable by @type');
  const dealerOwn = await harness(t, `rules:\n  - id: lossy\n    envelope: { unknown_detail: true }\n`, {
    proxy: { profile: '1.3' },
    dealer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: { type: 'aap.error', code: 'VEHICLE_NOT_FOUND' } } }));
    },
  });
  const own = dealerOwn.json(await dealerOwn.call('inventory.vehicle'));
  t.equal(own.error.data.code, 'VEHICLE_NOT_FOUND');
  t.ok('x_unknown_field' in own.error.data, '1.3: unknown fields added to the dealer\'s own payload');
  t.equal(dealerOwn.journal[0]!.error_code, 'VEHICLE_NOT_FOUND', 'the journal names the dealer\'s own error');
});

const sseDealer = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let n = 0;
  const tick = () => {
    if (n === 5) return void res.end();
    res.write(`data: {"jsonrpc":"2.0","id":1,"result":{"n":${n++}}}\n\n`);
    setTimeout(tick, 2);
  };
  tick();
};

async function readStream(url: string): Promise<{ text: string; broken: boolean }> {
  const req = http.request(url + '/a2a', { method: 'POST', agent: false });
  req.end(skillRequest('inventory.search'));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  let text = '';
  res.on('data', (c) => (text += c));
  const broken = await new Promise<boolean>((resolve) => {
    res.on('end', () => resolve(false));
    res.on('aborted', () => resolve(true));
    res.on('error', () => resolve(true));
  });
  return { text, broken };
}

t.test('stream: cut_after, error_after and delay_ms on SSE replies', async (t) => {
  const cut = await harness(t, `rules:\n  - { id: cut, stream: { cut_after: 2 } }\n`, { dealer: sseDealer });
  const a = await readStream(cut.proxy.url);
  t.equal(a.text.split('\n\n').filter(Boolean).length, 2, 'two events, then the cut');
  t.ok(a.broken, 'the stream ends broken, not completed');
  const err = await harness(t, `rules:\n  - { id: err, stream: { error_after: 3 } }\n`, { dealer: sseDealer });
  const b = await readStream(err.proxy.url);
  const events = b.text.split('\n\n').filter(Boolean);
  t.equal(events.length, 4);
  t.match(events[3], /^event: error\ndata: \{"jsonrpc":"2.0","id":1,"error":\{"code":-32603/);
  const slow = await harness(t, `rules:\n  - { id: slow, stream: { delay_ms: 30 } }\n`, { dealer: sseDealer });
  const started = performance.now();
  const c = await readStream(slow.proxy.url);
  t.equal(c.text.split('\n\n').filter(Boolean).length, 5, 'every event delivered');
  t.ok(performance.now() - started >= 140, 'each event was held back');
});

t.test('bandwidth: a slow body', async (t) => {
  const h = await harness(t, `rules:\n  - { id: thin, bandwidth: { bytes_per_s: 2000 } }\n`);
  const started = performance.now();
  const reply = await h.call('inventory.search');
  const ms = performance.now() - started;
  t.ok(JSON.parse(reply.body.toString()).result, 'the body arrives whole');
  t.ok(ms >= (reply.body.length / 2000) * 1000 * 0.8, `${reply.body.length} bytes took ${Math.round(ms)} ms`);
});

t.test('composition: modifiers add up; the first terminal effect ends evaluation', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: d1, delay: { ms: 30, distribution: fixed } }\n  - { id: d2, delay: { ms: 40, distribution: fixed } }\n  - { id: first, error: INTERNAL_ERROR }\n  - { id: never, error: RATE_LIMITED }\n`,
  );
  const started = performance.now();
  const env = h.json(await h.call('inventory.search'));
  t.ok(performance.now() - started >= 65, 'both delays applied');
  t.equal(env.error.data.code, 'INTERNAL_ERROR');
  t.same(h.journal[0]!.fired, ['d1', 'd2', 'first']);
  t.same(h.journal[0]!.matched, ['d1', 'd2', 'first'], 'evaluation stopped at the terminal effect');
});

t.test('max_active_faults caps concurrent injected faults', async (t) => {
  const h = await harness(t, `max_active_faults: 1\nrules:\n  - { id: slow, delay: { ms: 200, distribution: fixed } }\n`);
  const [a, b] = await Promise.all([h.call('inventory.search'), h.call('inventory.search')]);
  t.ok(h.json(a).result && h.json(b).result);
  const fired = h.journal.filter((e) => e.fired.includes('slow')).length;
  t.equal(fired, 1, 'only one of two concurrent requests got the fault');
  t.ok(h.journal.some((e) => e.effects.some((s) => s.includes('max_active_faults'))), 'the skip is journaled');
});

t.test('--dry-run decides and journals but changes nothing', async (t) => {
  const h = await harness(t, `rules:\n  - { id: boom, error: INTERNAL_ERROR }\n`, { proxy: { dryRun: true } });
  const env = h.json(await h.call('inventory.search'));
  t.ok(env.result, 'the dealer answered');
  t.match(h.journal[0], { dry_run: true, fired: ['boom'], source: 'dealer' });
});

t.test('--allow-header-faults: x-aap-chaos forces a rule or an AAP code; off by default', async (t) => {
  const yaml = `rules:\n  - { id: gone, match: { skill: nothing.here }, error: VEHICLE_UNAVAILABLE }\n`;
  const on = await harness(t, yaml, { engine: { allowHeaderFaults: true } });
  t.equal(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'gone' } })).error.data.code, 'VEHICLE_UNAVAILABLE');
  t.equal(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'IDEMPOTENCY_CONFLICT' } })).error.data.code, 'IDEMPOTENCY_CONFLICT');
  t.ok(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'no-such-thing' } })).result, 'an unknown value forces nothing');
  const off = await harness(t, yaml);
  t.ok(off.json(await off.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'gone' } })).result, 'ignored unless allowed');
});

t.test('the proxy never throws on odd requests under rules that inspect bodies', async (t) => {
  const h = await harness(t, `rules:\n  - id: b\n    match: { body: [{ pointer: /params/message/parts/0/data/vin, exists: true }] }\n    error: VEHICLE_NOT_FOUND\n`);
  for (const body of ['nope', '[1,2]', '{}', '']) {
    const reply = await request(h.proxy.url + '/a2a', { method: 'POST', body });
    t.equal(reply.status, 200, `forwarded ${JSON.stringify(body)}`);
  }
});
