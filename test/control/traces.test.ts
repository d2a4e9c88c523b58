// Traces over real sockets: the real OTLP exporter posts to a receiver on loopback, which decodes
// what it sends. A buyer's traceparent is continued, the dealer joins the same trace, faults are
// events; a collector that refuses or hangs costs spans (counted), never requests.
import t, { type Test } from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { dealerReply } from '../helpers/chaos-harness.js';
import { request, skillRequest, startUpstream, type Upstream } from '../helpers/servers.js';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const SERVER = 2; // OTLP SpanKind
const CLIENT = 3;
const STATUS_ERROR = 2;

const SCENARIO = `
scenario: traced
rules:
  - id: slow-search
    match: { skill: inventory.search }
    delay: { ms: 5 }
    patch: [{ op: replace, path: /result/message/messageId, value: patched }]
  - id: limit-vehicle
    match: { skill: inventory.vehicle }
    error: RATE_LIMITED
    retry_after_ms: 1500
`;

async function dealer(t: Test): Promise<Upstream> {
  const upstream = await startUpstream((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(dealerReply(body));
  });
  t.teardown(() => upstream.close());
  return upstream;
}

async function runtime(t: Test, target: string, otlpEndpoint: string | undefined, env: NodeJS.ProcessEnv): Promise<Runtime> {
  const rt = await startRuntime({ target, port: 0, adminPort: 0, scenario: SCENARIO, profile: '1.3', otlpEndpoint, env });
  t.teardown(() => rt.close());
  return rt;
}

const call = (url: string, skill: string, id: number, headers: Record<string, string> = {}) =>
  request(`${url}/a2a`, { body: skillRequest(skill, {}, id), headers: { 'content-type': 'application/json', ...headers } });

/** The value of one sample of the metrics text, 0 when absent. */
async function sample(rt: Runtime, name: string, labels: string): Promise<number> {
  const line = (await rt.metrics.text()).split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

async function eventually(read: () => Promise<number>, atLeast: number, ms = 15_000): Promise<number> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (value < atLeast && Date.now() < deadline) {
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20)); // polling a counter, bounded by the deadline
    value = await read();
  }
  return value;
}

t.test('a buyer traceparent: server span in that trace, fault events, attributes; the dealer joins through the client span', async (t) => {
  const receiver = await startOtlpReceiver();
  t.teardown(() => receiver.close());
  const upstream = await dealer(t);
  const rt = await runtime(t, upstream.url, receiver.url, { OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_SERVICE_NAME: 'dealer-chaos' });

  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const buyerSpan = '00f067aa0ba902b7';
  const reply = await call(rt.url, 'inventory.search', 7, { traceparent: `00-${traceId}-${buyerSpan}-01`, tracestate: 'buyer=1' });
  t.equal(JSON.parse(reply.body.toString()).result.message.messageId, 'patched', 'the patch acted');

  const limited = await call(rt.url, 'inventory.vehicle', 8, { traceparent: `00-${traceId}-${buyerSpan}-01`, 'x-aap-chaos-session': 'qa-1' });
  t.equal(JSON.parse(limited.body.toString()).error.code, -32002);

  await receiver.until((spans) => spans.filter((s) => s.kind === SERVER).length >= 2 && spans.some((s) => s.kind === CLIENT));
  const servers = receiver.spans.filter((s) => s.kind === SERVER);
  const search = servers.find((s) => s.attributes['aap.skill'] === 'inventory.search')!;
  const vehicle = servers.find((s) => s.attributes['aap.skill'] === 'inventory.vehicle')!;
  const client = receiver.spans.find((s) => s.kind === CLIENT)!;

  t.same(receiver.paths[0], '/v1/traces', 'the base endpoint gets /v1/traces');
  t.equal(search.resource['service.name'], 'dealer-chaos', 'OTEL_SERVICE_NAME names the service');
  t.equal(search.traceId, traceId, 'the server span is in the buyer trace');
  t.equal(search.parentSpanId, buyerSpan, "its parent is the buyer's span");
  t.equal(search.name, 'SendMessage');
  t.match(search.attributes, {
    'rpc.system.name': 'jsonrpc',
    'rpc.method': 'SendMessage',
    'jsonrpc.request.id': '7',
    'aap.skill': 'inventory.search',
    'aap.profile': '1.3',
    'aap.outcome': 'result',
    'aap_chaos.source': 'dealer',
    'http.response.status_code': 200,
  });
  t.equal(search.attributes['aap.error.code'], undefined);
  const faults = search.events.filter((e) => e.name === 'aap_chaos.fault');
  t.same(
    faults.map((e) => [e.attributes['aap_chaos.rule.id'], e.attributes['aap_chaos.fault.effect']]),
    [
      ['slow-search', 'delay'],
      ['slow-search', 'patch'],
    ],
    'one event per fault that fired',
  );
  t.ok(
    faults.every((e) => typeof e.attributes['aap_chaos.fault.explain'] === 'string' && (e.attributes['aap_chaos.fault.explain'] as string).length > 0),
    'each with its sentence',
  );

  t.equal(client.traceId, traceId, 'the client span is in the same trace');
  t.equal(client.parentSpanId, search.spanId, 'a child of the server span');
  t.equal(client.attributes['http.response.status_code'], 200);
  const posts = upstream.seen.filter((r) => r.method === 'POST');
  t.equal(posts.length, 1, 'only the forwarded request reached the dealer');
  t.equal(posts[0]!.headers.traceparent, `00-${traceId}-${client.spanId}-01`, "the dealer got the client span's context");
  t.equal(posts[0]!.headers.tracestate, 'buyer=1', 'and the tracestate');

  t.match(vehicle.attributes, {
    'aap.error.code': 'RATE_LIMITED',
    'rpc.response.status_code': '-32002',
    'aap.outcome': 'error',
    'aap_chaos.source': 'injected',
    'aap_chaos.session': 'qa-1',
  });
  t.equal(vehicle.status?.code, STATUS_ERROR);
  t.same(
    vehicle.events.map((e) => [e.name, e.attributes['aap_chaos.rule.id'], e.attributes['aap_chaos.fault.effect']]),
    [['aap_chaos.fault', 'limit-vehicle', 'error']],
  );
  t.equal(receiver.spans.filter((s: ReceivedSpan) => s.kind === CLIENT).length, 1, 'an injected answer calls no dealer: no client span');
});

t.test('without a traceparent the exchange starts a trace, and the dealer still joins it', async (t) => {
  const receiver = await startOtlpReceiver();
  t.teardown(() => receiver.close());
  const upstream = await dealer(t);
  const rt = await runtime(t, upstream.url, `${receiver.url}/v1/traces`, { OTEL_BSP_SCHEDULE_DELAY: '20' });
  await call(rt.url, 'dealer.information', 1);
  await receiver.until((spans) => spans.length >= 2);
  const server = receiver.spans.find((s) => s.kind === SERVER)!;
  t.equal(server.parentSpanId, undefined, 'a root span');
  t.equal(receiver.paths[0], '/v1/traces', 'a URL ending in /v1/traces is kept as it is');
  t.match(upstream.seen.find((r) => r.method === 'POST')!.headers.traceparent, new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`));
});

t.test("a buyer's unsampled trace: no span is exported, and its trace still reaches the dealer", async (t) => {
  const receiver = await startOtlpReceiver();
  t.teardown(() => receiver.close());
  const upstream = await dealer(t);
  const rt = await runtime(t, upstream.url, receiver.url, { OTEL_BSP_SCHEDULE_DELAY: '20' });
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  await call(rt.url, 'dealer.information', 1, { traceparent: `00-${traceId}-b7ad6b7169203331-00` });
  await call(rt.url, 'dealer.information', 2); // a sampled one after it, to know the batch went out
  await receiver.until((spans) => spans.length >= 2);
  t.notOk(
    receiver.spans.some((s) => s.traceId === traceId),
    'the unsampled exchange has no exported span',
  );
  t.match(
    upstream.seen.find((r) => r.method === 'POST')!.headers.traceparent,
    new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`),
    'the dealer gets the same trace, unsampled',
  );
});

/** A collector that accepts connections and never answers. */
async function hangingCollector(t: Test): Promise<string> {
  const server = http.createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: connections are refused. */
async function refusingCollector(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

for (const [what, collector] of [
  ['refuses', async () => refusingCollector()],
  ['hangs', async (t: Test) => hangingCollector(t)],
] as const) {
  t.test(`a collector that ${what}: every request is answered as without traces, and the lost spans are counted`, async (t) => {
    const upstream = await dealer(t);
    const endpoint = await collector(t);
    const rt = await runtime(t, upstream.url, endpoint, {
      OTEL_BSP_SCHEDULE_DELAY: '10',
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
      OTEL_BSP_MAX_QUEUE_SIZE: '8',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4',
    });
    const requests = 30;
    for (let i = 1; i <= requests; i++) {
      const reply = await call(rt.url, 'dealer.information', i);
      t.equal(reply.status, 200);
      t.equal(JSON.parse(reply.body.toString()).id, i);
    }
    const limited = await call(rt.url, 'inventory.vehicle', 99);
    t.equal(JSON.parse(limited.body.toString()).error.code, -32002, 'faults still apply');
    // 30 forwarded exchanges (server + client span) and one injected one (server span).
    const spans = 2 * requests + 1;
    const read = async () =>
      (await sample(rt, 'aap_chaos_spans_dropped_total', 'reason="queue_full"')) +
      (await sample(rt, 'aap_chaos_spans_dropped_total', 'reason="export_failed"'));
    const dropped = await eventually(read, spans);
    t.equal(dropped, spans, 'every span is counted as dropped, once');
    t.ok((await sample(rt, 'aap_chaos_spans_dropped_total', 'reason="export_failed"')) > 0, 'failed exports are counted');
  });
}

const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--port', '0', '--admin-port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

t.test('a malformed endpoint: one line naming the flag or the variable, exit 2', async (t) => {
  const flag = await cli(['--otlp-endpoint', 'collector:4318']);
  t.equal(flag.code, 2);
  t.match(flag.err, /^aap-chaos: --otlp-endpoint: "collector:4318" is not an http:\/\/ or https:\/\/ URL\n$/);
  const variable = await cli([], { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' });
  t.equal(variable.code, 2);
  t.match(variable.err, /^aap-chaos: OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" is not a URL/);
  t.equal(variable.err.trim().split('\n').length, 1);
  const queue = await cli(['--otlp-endpoint', 'http://127.0.0.1:4318'], { OTEL_BSP_MAX_QUEUE_SIZE: 'lots' });
  t.equal(queue.code, 2);
  t.match(queue.err, /^aap-chaos: OTEL_BSP_MAX_QUEUE_SIZE: "lots" is not a whole number ≥ 1\n$/);
});
