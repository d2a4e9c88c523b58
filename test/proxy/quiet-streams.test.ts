// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// A dealer's event stream may be quiet on purpose (a task waiting for input): --upstream-timeout
// does not cut it, only --stream-idle-timeout does, and a reply the proxy's own timer ended is
// journaled as `proxy_timeout`, never as the dealer's truncation. A stream the buyer leaves after
// a 200 and some events is journaled with the 200 it got. Short timeouts, real sockets, raw HTTP
// and the @a2a-js/sdk client.
import t from 'tap';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { SendMessageRequest } from '@a2a-js/sdk';
import { harness, type Harness } from '../helpers/chaos-harness.js';
import { createBuyer, skillRequestJson } from '../helpers/sdk-buyer.js';
import { waitFor } from '../helpers/servers.js';
import type { ProxyOptions } from '../../src/proxy/server.js';

/**
 * Short, but not so short that a dealer in this busy test process misses it before its headers: at
 * 100 ms a loaded CI machine once answered the headers late, and the stream was never tested.
 */
const UPSTREAM_TIMEOUT_MS = 400;
/** How long the dealer stays quiet mid-stream: well past the upstream timeout (and undici's coarse clock). */
const QUIET_MS = 1_500;

const streamBody = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'SendStreamingMessage', params: skillRequestJson('inventory.search') });
const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
const submitted = { task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } };
const completed = { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } };

/** The card an SDK buyer reads; the proxy rewrites its URL to itself. */
function card(host: string): Record<string, unknown> {
  return {
    name: 'Quiet Motors',
    description: 'A dealer whose task streams pause between events.',
    version: '1.0.0',
    supportedInterfaces: [{ url: `http://${host}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [],
  };
}

/**
 * A dealer that opens a task stream, sends the task, and then: stays quiet for `quietMs` before
 * the final event and the end (`quietMs` undefined: stays quiet until the connection goes).
 */
function quietDealer(quietMs: number | undefined) {
  return (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(card(req.headers.host ?? '')));
    }
    const id = (JSON.parse(body.toString()) as { id: unknown }).id;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(frame(id, submitted));
    if (quietMs === undefined) return;
    const timer = setTimeout(() => res.end(frame(id, completed)), quietMs);
    res.once('close', () => clearTimeout(timer));
  };
}

interface StreamRead {
  status?: number;
  text: string;
  /** The reply ended cleanly (not cut). */
  complete: boolean;
}

/** Reads a streaming reply until it ends or breaks; `leaveAfterFirstEvent` hangs up once one event is in. */
function readStream(url: string, id: number, leaveAfterFirstEvent = false): Promise<StreamRead> {
  return new Promise((resolve) => {
    let text = '';
    let status: number | undefined;
    const req = http.request(
      `${url}/a2a`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
      (res) => {
        status = res.statusCode;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (leaveAfterFirstEvent && text.includes('\n\n')) {
            req.destroy();
            resolve({ status, text, complete: false });
          }
        });
        res.on('end', () => resolve({ status, text, complete: res.complete }));
        res.on('aborted', () => resolve({ status, text, complete: false }));
        res.on('error', () => resolve({ status, text, complete: false }));
      },
    );
    req.on('error', () => resolve({ status, text, complete: false }));
    req.end(streamBody(id));
  });
}

/** The journal line of the `n`th streaming call (1-based), once it is written. */
async function streamLine(h: Harness, n: number) {
  const lines = () => h.journal.filter((line) => line.method === 'SendStreamingMessage');
  await waitFor(() => lines().length >= n, 10_000);
  return lines()[n - 1]!;
}

const passThrough = 'rules: []\n';
/** A stream modifier that changes nothing a buyer could see, so the reply takes the effects path. */
const viaEffects = 'rules:\n  - { id: slow-frames, match: { method: SendStreamingMessage }, stream: { delay_ms: 1 } }\n';

t.test('a stream quiet for longer than --upstream-timeout stays open until the dealer ends it', async (t) => {
  for (const [path, scenario] of [
    ['pass-through', passThrough],
    ['effects', viaEffects],
  ] as const) {
    const h = await harness(t, scenario, { dealer: quietDealer(QUIET_MS), proxy: { upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS } });
    const started = performance.now();
    const got = await readStream(h.proxy.url, 1);
    t.equal(got.status, 200, `${path}: 200`);
    t.ok(got.complete, `${path}: the stream ended cleanly, not cut by the proxy`);
    t.match(got.text, /TASK_STATE_SUBMITTED[\s\S]*TASK_STATE_COMPLETED/, `${path}: both events arrived`);
    t.ok(performance.now() - started >= QUIET_MS - 10, `${path}: the quiet gap was waited out`);
    const line = await streamLine(h, 1);
    t.equal(line.outcome, 'result', `${path}: journaled as a result`);
    t.equal(line.unknown_cause, undefined, `${path}: no unknown cause`);
  }
});

t.test('the SDK client reads a quiet stream through a pass-through proxy to its end', async (t) => {
  const h = await harness(t, passThrough, { dealer: quietDealer(QUIET_MS), proxy: { upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS } });
  const buyer = await createBuyer(h.proxy.url);
  const states: string[] = [];
  for await (const event of buyer.sendMessageStream(SendMessageRequest.fromJSON(skillRequestJson('inventory.search')))) {
    const payload = event.payload;
    if (payload?.$case === 'task') states.push('task');
    if (payload?.$case === 'statusUpdate') states.push('statusUpdate');
  }
  t.same(states, ['task', 'statusUpdate'], 'the task, then the final status after the quiet gap');
});

t.test('--stream-idle-timeout ends a stream quieter than it, and the journal says proxy_timeout', async (t) => {
  const idle: Partial<ProxyOptions> = { upstreamTimeoutMs: 10_000, streamIdleTimeoutMs: 150 };
  for (const [path, scenario] of [
    ['pass-through', passThrough],
    ['effects', viaEffects],
  ] as const) {
    const h = await harness(t, scenario, { dealer: quietDealer(undefined), proxy: idle });
    const started = performance.now();
    const got = await readStream(h.proxy.url, 1);
    const ms = performance.now() - started;
    t.equal(got.status, 200, `${path}: 200`);
    t.match(got.text, /TASK_STATE_SUBMITTED/, `${path}: the first event arrived`);
    t.notOk(got.complete, `${path}: then the proxy ended the stream`);
    t.ok(ms >= 140 && ms < 5_000, `${path}: after the idle limit (${Math.round(ms)} ms)`);
    const line = await streamLine(h, 1);
    t.equal(line.status, 200, `${path}: status 200, as the buyer got it`);
    t.equal(line.outcome, 'unknown');
    t.equal(line.unknown_cause, 'proxy_timeout', `${path}: the proxy's own timer, not "truncated"`);
    t.match(line.notes?.join(' '), /--stream-idle-timeout \(150 ms\)/, `${path}: the note names the limit`);
  }
});

t.test('a JSON body stalled past --upstream-timeout is a proxy_timeout too', async (t) => {
  const h = await harness(t, passThrough, {
    proxy: { upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS },
    dealer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"jsonrpc":"2.0",');
    },
  });
  const got = await readStream(h.proxy.url, 1);
  t.notOk(got.complete, 'the buyer sees a broken reply');
  const line = await streamLine(h, 1);
  t.equal(line.unknown_cause, 'proxy_timeout');
  t.match(line.notes?.join(' '), /upstream timeout/);
});

t.test('a stream the buyer leaves after a 200 and an event is journaled with status 200', async (t) => {
  const h = await harness(t, passThrough, { dealer: quietDealer(undefined) });
  const got = await readStream(h.proxy.url, 1, true);
  t.match(got.text, /TASK_STATE_SUBMITTED/);
  const raw = await streamLine(h, 1);
  t.equal(raw.status, 200, 'raw: the status the buyer received, not 0');
  t.equal(raw.aborted, true, 'raw: the buyer left first');
  t.equal(raw.unknown_cause, 'timeout');

  const buyer = await createBuyer(h.proxy.url);
  const leave = new AbortController();
  const events: string[] = [];
  try {
    for await (const event of buyer.sendMessageStream(SendMessageRequest.fromJSON(skillRequestJson('inventory.search')), { signal: leave.signal })) {
      events.push(event.payload?.$case ?? '');
      leave.abort();
    }
  } catch (e) {
    t.equal((e as Error).name, 'AbortError', 'the SDK buyer gave up by its own signal');
  }
  t.same(events, ['task']);
  const sdk = await streamLine(h, 2);
  t.equal(sdk.status, 200, 'SDK: the status the buyer received, not 0');
  t.equal(sdk.aborted, true);
});
