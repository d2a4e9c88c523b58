// Each built-in scenario, run against the embedded mock dealer through the proxy, does what its
// description says.
import t, { type Test } from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import { startChaos, type Chaos } from '../../src/index.js';
import { request, skillRequest, type RawReply } from '../helpers/servers.js';
import { AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import type { ChaosOptions } from '../../src/index.js';

async function chaosFor(t: Test, scenario: string, opts: ChaosOptions = {}): Promise<Chaos> {
  const chaos = await startChaos({ scenario, ...opts });
  t.teardown(() => chaos.close());
  return chaos;
}

const call = (chaos: Chaos, skill: string, data: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  request(chaos.url + '/a2a', { body: skillRequest(skill, data), headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers } });
const code = (reply: RawReply): string | undefined => {
  const env = JSON.parse(reply.body.toString());
  const data = env.error?.data;
  if (!data) return undefined;
  const entries = Array.isArray(data) ? data : [data];
  return entries.find((d: any) => d.type === 'aap.error')?.code ?? entries[0]?.reason;
};
const lead = {
  customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  consent: { granted_at: '2024-01-01T00:00:00Z', allowed_channels: ['email'], consent_text: 'Contact me.', scope: ['lead_submission'] },
  source_agent: { name: 'test buyer' },
  idempotency_key: 'k-1',
  appointment: { appointment_type: 'sales', appointment_at: '2030-01-07T15:00:00-06:00' },
};

t.test('passthrough: nothing is touched', async (t) => {
  const chaos = await chaosFor(t, 'passthrough');
  t.equal(code(await call(chaos, 'dealer.information')), undefined);
  t.same(
    chaos.journal().flatMap((e) => e.fired),
    [],
  );
});

t.test('rate-limit-storm and demo: the sixth search in 10 s is RATE_LIMITED with a true hint', async (t) => {
  for (const name of ['rate-limit-storm', 'demo']) {
    const chaos = await chaosFor(t, name);
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) codes.push(code(await call(chaos, 'inventory.search', { pagination: { limit: 1 } })));
    t.same(codes, [undefined, undefined, undefined, undefined, undefined, 'RATE_LIMITED'], name);
    const hint = chaos.journal().at(-1)!.retry_after_ms!;
    t.ok(hint > 8000 && hint <= 10000, `${name}: retry_after_ms ${hint}`);
  }
});

t.test('flaky-internal: the vehicle outage hits lookups 3 to 6', async (t) => {
  const chaos = await chaosFor(t, 'flaky-internal');
  const vin = JSON.parse((await call(chaos, 'inventory.search', { pagination: { limit: 1 } })).body.toString()).result?.message.parts[0].data.data.vehicles[0]
    .vin as string | undefined;
  for (let i = 0; i < 7; i++) await call(chaos, 'inventory.vehicle', { vin: vin ?? '1HGCY2F57RA000001' });
  const outage = chaos.journal().filter((e) => e.fired.includes('vehicle-outage'));
  t.equal(outage.length, 4);
  t.ok(outage.every((e) => e.error_code === 'INTERNAL_ERROR' && e.retryable === true));
});

t.test('activation-required and version-mismatch: the 2.0 header policy', async (t) => {
  const act = await chaosFor(t, 'activation-required');
  const missing = JSON.parse((await call(act, 'dealer.information')).body.toString());
  t.equal(missing.error.code, -32008);
  t.ok(missing.error.message.includes(AAP_EXTENSION_URI_2_0_DRAFT));
  t.equal(code(await call(act, 'dealer.information', {}, { 'a2a-extensions': AAP_EXTENSION_URI_2_0_DRAFT })), undefined, 'activated: served');
  const ver = await chaosFor(t, 'version-mismatch');
  const noVersion = await request(ver.url + '/a2a', {
    body: skillRequest('dealer.information'),
    headers: { 'content-type': 'application/json', 'a2a-extensions': AAP_EXTENSION_URI_2_0_DRAFT },
  });
  t.equal(JSON.parse(noVersion.body.toString()).error.code, -32009);
  t.equal(code(await call(ver, 'dealer.information', {}, { 'a2a-extensions': AAP_EXTENSION_URI_2_0_DRAFT })), undefined, 'A2A-Version 1.0: served');
});

t.test('slow-dealer: replies come late', async (t) => {
  const chaos = await chaosFor(t, 'slow-dealer', { seed: 3 });
  await call(chaos, 'dealer.information');
  const e = chaos.journal().at(-1)!;
  t.ok(e.fired.includes('slow-everything'));
  t.ok(e.duration_ms >= 100, `took ${e.duration_ms} ms`);
});

t.test('inventory-churn: search results change under the buyer, vehicles go unavailable', async (t) => {
  const plain = await chaosFor(t, 'passthrough');
  const churn = await chaosFor(t, 'inventory-churn');
  const before = JSON.parse((await call(plain, 'inventory.search', { pagination: { limit: 3 } })).body.toString()).result.message.parts[0].data.data;
  const after = JSON.parse((await call(churn, 'inventory.search', { pagination: { limit: 3 } })).body.toString()).result.message.parts[0].data.data;
  t.equal(after.vehicles[0].status, 'pending', 'first vehicle turned pending');
  t.equal(after.vehicles.length, before.vehicles.length - 1, 'second vehicle gone');
  t.equal(after.vehicles[1].vin, before.vehicles[2].vin);
  const codes = [];
  for (let i = 0; i < 2; i++) codes.push(code(await call(churn, 'inventory.vehicle', { vin: before.vehicles[0].vin })));
  t.same(codes, [undefined, 'VEHICLE_UNAVAILABLE'], 'every second lookup: sold');
});

t.test('lead-gauntlet: consent, consent scope, idempotency and appointment errors in turn', async (t) => {
  const chaos = await chaosFor(t, 'lead-gauntlet');
  const codes = [];
  for (let i = 0; i < 4; i++) codes.push(code(await call(chaos, 'lead.submit', lead)));
  t.same(codes, ['CONTACT_CONSENT_REQUIRED', 'INVALID_CONSENT', 'IDEMPOTENCY_CONFLICT', 'APPOINTMENT_TIME_UNAVAILABLE']);
});

t.test('retryable-overrides: each first search, vehicle lookup and lead gets an error whose retryable overrides its default', async (t) => {
  const chaos = await chaosFor(t, 'retryable-overrides');
  const payload = (reply: RawReply) => JSON.parse(reply.body.toString()).error?.data as { code: string; retryable: boolean } | undefined;
  t.match(payload(await call(chaos, 'inventory.search', {})), { code: 'SCHEMA_VALIDATION_FAILED', retryable: true }, 'the first search');
  t.equal(payload(await call(chaos, 'inventory.search', {})), undefined, 'the same search again goes through');
  const overridden = [];
  for (const [skill, data] of [
    ['inventory.vehicle', { vin: '3FMUKX5S6SF000001' }],
    ['lead.submit', lead],
  ] as const) {
    const first = payload(await call(chaos, skill, data));
    overridden.push([first?.code, first?.retryable]);
    t.equal(payload(await call(chaos, skill, data)), undefined, `${skill}: only the first one`);
  }
  t.same(overridden, [
    ['VEHICLE_UNAVAILABLE', true],
    ['INTERNAL_ERROR', false],
  ]);
  const refused = chaos.journal().find((e) => e.skill === 'inventory.search')!;
  t.match(refused, { error_code: 'SCHEMA_VALIDATION_FAILED', retryable: true, listed_problems: ['/sort'] });
});

t.test('lossy-envelope: error payloads padded with what buyers must ignore', async (t) => {
  const chaos = await chaosFor(t, 'lossy-envelope', { mock: { profile: '2.0' }, profile: '2.0' });
  let env: any;
  for (let i = 0; i < 30 && !env; i++) {
    const reply = JSON.parse(
      (await call(chaos, 'inventory.vehicle', { vin: '1HGCY2F57RA000001' }, { 'a2a-extensions': AAP_EXTENSION_URI_2_0_DRAFT })).body.toString(),
    );
    if (reply.error && reply.error.data.some((d: any) => d.code === 'VEHICLE_NOT_FOUND')) env = reply;
  }
  t.ok(env, 'a VEHICLE_NOT_FOUND came through');
  t.ok(
    env.error.data.some((d: any) => d['@type'] === 'type.googleapis.com/example.chaos.UnknownDetail'),
    'with an unknown @type entry',
  );
});

t.test('network-chaos: broken transports, and the proxy keeps serving', async (t) => {
  const chaos = await chaosFor(t, 'network-chaos', { seed: 11 });
  let broken = 0;
  for (let i = 0; i < 40; i++) {
    try {
      const reply = await call(chaos, 'dealer.information');
      JSON.parse(reply.body.toString());
      if (reply.status !== 200) broken++;
    } catch {
      broken++;
    }
  }
  t.ok(broken > 0, `${broken} of 40 replies were broken`);
  t.equal(code(await call(chaos, 'dealer.information', {}, {})) ?? 'ok', 'ok', 'still serving');
});

t.test('stream-chaos: streamed replies are slowed and broken', async (t) => {
  const chaos = await chaosFor(t, 'stream-chaos', { mock: { streaming: true }, seed: 5 });
  const req = http.request(chaos.url + '/a2a', {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
  });
  req.end(JSON.stringify({ ...JSON.parse(skillRequest('dealer.information')), method: 'SendStreamingMessage' }));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  t.match(res.headers['content-type'], /text\/event-stream/);
  res.resume();
  await new Promise((r) => {
    res.on('end', r);
    res.on('error', r);
    res.on('aborted', r);
    res.on('close', r);
  });
  const e = chaos.journal().find((x) => x.method === 'SendStreamingMessage');
  t.ok(e?.fired.includes('slow-events'), 'events were delayed');
  t.ok(e!.duration_ms >= 190, `the stream took ${e!.duration_ms} ms`);
});

t.test('full-gauntlet: many faults at once; the proxy stays up', async (t) => {
  const chaos = await chaosFor(t, 'full-gauntlet');
  for (let i = 0; i < 12; i++) await call(chaos, i % 2 ? 'inventory.search' : 'lead.submit', i % 2 ? {} : lead).catch(() => undefined);
  const fired = new Set(chaos.journal().flatMap((e) => e.fired));
  t.ok(fired.has('latency') && fired.has('consent-required'), `fired: ${[...fired].join(', ')}`);
  t.equal(code(await call(chaos, 'dealer.information')) ?? 'ok', 'ok');
});
