// A seeded fuzz against the proxy, the mock dealer and the admin API. Every case is sent on its own
// socket; each must be answered or closed within a bound, the listeners keep serving, and the
// process's open file descriptors come back near their baseline and its RSS stops growing once the first half of the cases has shaped it. The runtime runs in a child
// process (the compiled one: `npm test` builds dist/ first), so what is measured is its own memory,
// not this test's payloads. The seed is printed; AAP_CHAOS_FUZZ_SEED replays a run.
import t from 'tap';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request, skillRequest } from '../helpers/servers.js';
import type { EffectKey } from '../../src/scenario/effect-keys.generated.js';

const SEED = Number(process.env.AAP_CHAOS_FUZZ_SEED ?? Date.now() % 1_000_000);
const CASES = Number(process.env.AAP_CHAOS_FUZZ_CASES ?? 3_000);
/**
 * How far the runtime's RSS may grow over the second half of the cases. The first half grows the
 * allocator's arenas and pools to what this traffic needs (20 to 50 MB above the warmed-up
 * baseline, from run to run); a leak keeps growing with every case after that.
 */
const RSS_GROWTH_LIMIT_MB = 24;
/**
 * The longest a case may take. The slowest legitimate one: a request cut short, ended by the 1 s
 * body timeout (checked each second), or one whose dealer is given up after UPSTREAM_TIMEOUT_MS,
 * behind up to four pipelined requests served concurrently — about 3 s; 10 s leaves room for a
 * machine whose cores are all busy.
 */
const BOUND_MS = 10_000;
const UPSTREAM_TIMEOUT_MS = 2_000;
const PARALLEL = 8;

/** mulberry32: small, fast, seeded. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// One rule of every effect kind, each picked by an exact header, so a case chooses which it hits.
// Keyed by the registry's effect keys: a new effect does not compile here until it has a rule.
const EXAMPLES: Record<EffectKey, Record<string, string>> = {
  error: { error: 'error: VEHICLE_UNAVAILABLE' },
  a2a_error: { a2a: 'a2a_error: TASK_NOT_FOUND' },
  require: { require: 'require: { extension: true }' },
  rate_limit: { limit: 'rate_limit: { limit: 1, window_ms: 60000 }' },
  http: { http: 'http: { status: 503, body: "down" }' },
  network: { reset: 'network: reset', hang: 'network: { hang_ms: 50 }', malformed: 'network: malformed_json', cut: 'network: { truncate_bytes: 30 }' },
  delay: { delay: 'delay: { ms: 5 }' },
  patch: { patch: 'patch: [{ op: add, path: /fuzz, value: 1 }]' },
  envelope: { envelope: 'envelope: { shuffle: true, unknown_detail: true }' },
  stream: { stream: 'stream: { delay_ms: 1 }' },
  bandwidth: { bandwidth: 'bandwidth: { bytes_per_s: 200000 }' },
  card: { card: 'card: { delay: { ms: 5 } }' },
};
const EFFECTS: Record<string, string> = Object.assign({}, ...Object.values(EXAMPLES));
const SCENARIO = `scenario: fuzz\nrules:\n${Object.entries(EFFECTS)
  .map(([id, effect]) => `  - id: ${id}\n    match: { headers: { x-fuzz-rule: ${id} } }\n    ${effect}\n`)
  .join('')}  - id: pattern\n    match: { headers: { x-fuzz-pattern: { regex: "(a+)+$" } } }\n    error: INTERNAL_ERROR\n`;

type Rand = () => number;
const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const bytes = (r: Rand, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));

function bodies(r: Rand, maxBody: number, maxInspect: number): Buffer {
  const valid = skillRequest(
    pick(r, ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit']),
    { q: 'x' },
    Math.floor(r() * 1000),
  );
  switch (Math.floor(r() * 12)) {
    case 0:
      return bytes(r, Math.floor(r() * 2000));
    case 1:
      return Buffer.from(valid.slice(0, Math.floor(r() * valid.length)));
    case 2:
      return Buffer.from('{"jsonrpc":"2.0",,}');
    case 3:
      return Buffer.from(
        JSON.stringify(pick(r, [[], {}, 1, 'x', null, { jsonrpc: '1.0' }, { method: 7 }, { jsonrpc: '2.0', method: 'SendMessage', params: 'no' }])),
      );
    case 4:
      return Buffer.from(`[${valid},${valid},{"id":2}]`);
    case 5:
      return Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    case 6:
      return r() < 0.15 ? Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'x'.repeat(5_000_000), method: 'SendMessage' })) : Buffer.from(valid);
    case 7:
      return Buffer.concat([Buffer.from(valid.slice(0, 40)), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(valid.slice(40))]);
    case 8:
      return Buffer.alloc(maxInspect + 1 + Math.floor(r() * 1000), 'a');
    case 9:
      return r() < 0.2 ? Buffer.alloc(maxBody + 10, 'b') : Buffer.from(valid);
    default:
      return Buffer.from(valid);
  }
}

function httpRequest(r: Rand, opts: { host: string; path: string; maxBody: number; maxInspect: number; method?: string; last: boolean }): Buffer {
  const body = bodies(r, opts.maxBody, opts.maxInspect);
  const headers: string[] = [`host: ${opts.host}`];
  const type = pick(r, ['application/json', 'application/json', 'text/plain', 'application/yaml', 'application/x-www-form-urlencoded', undefined]);
  if (type) headers.push(`content-type: ${type}`);
  if (r() < 0.3) headers.push(`x-fuzz-rule: ${pick(r, Object.keys(EFFECTS))}`);
  if (r() < 0.05) headers.push(`x-fuzz-pattern: ${'a'.repeat(40)}!`);
  if (r() < 0.05) headers.push('x-dup: 1', 'x-dup: 2', 'content-type: text/html');
  if (r() < 0.03) headers.push(`x-big: ${'h'.repeat(60_000)}`);
  if (r() < 0.05) headers.push('origin: http://evil.example');
  if (opts.last) headers.push('connection: close');
  const chunked = r() < 0.1;
  if (chunked) headers.push('transfer-encoding: chunked');
  else headers.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${opts.method ?? 'POST'} ${opts.path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
  return Buffer.concat(chunked ? [head, Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')] : [head, body]);
}

/** One case: raw bytes on a fresh socket. Resolves with how long until the server closed it. */
function sendCase(url: string, payload: Buffer): Promise<number | 'unbounded'> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let closedAt: number | undefined;
    // When this process was starved, its timer may come due in the same turn as a close that
    // arrived in time: the verdict waits one turn, after the sockets' events have been read.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (closedAt !== undefined) return;
          socket.destroy();
          resolve('unbounded');
        }),
      BOUND_MS,
    );
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAt = Date.now();
      clearTimeout(timer);
      resolve(closedAt - started);
    });
    socket.write(payload, () => {});
  });
}

function caseFor(r: Rand, url: string, target: 'proxy' | 'mock' | 'admin', limits: { maxBody: number; maxInspect: number }): Buffer {
  const host = new URL(url).host;
  const path =
    target === 'admin'
      ? pick(r, ['/status', '/reset', '/scenario', '/rules/error', '/journal?limit=2', '/metrics', '/events', '/nope'])
      : pick(r, ['/a2a', '/a2a', '/', '/.well-known/agent-card.json']);
  const method = target === 'admin' ? pick(r, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) : pick(r, ['POST', 'POST', 'POST', 'GET']);
  const kind = r();
  if (kind < 0.06) return bytes(r, 1 + Math.floor(r() * 500)); // not HTTP at all
  if (kind < 0.1) return Buffer.from(`GET / HTTP/1.1\r\nhost: ${host}\r\nx: ${'\u00ff'.repeat(10)}\r\nbad header line\r\n\r\n`, 'latin1');
  if (kind < 0.2) {
    // Pipelined: several requests in one write; the server closes after the last.
    const n = 2 + Math.floor(r() * 3);
    return Buffer.concat(Array.from({ length: n }, (_, i) => httpRequest(r, { host, path, method, ...limits, last: i === n - 1 })));
  }
  const req = httpRequest(r, { host, path, method, ...limits, last: true });
  return r() < 0.03 ? req.subarray(0, Math.floor(r() * req.length)) : req; // cut short: the timeouts end it
}

/** The request lines and headers of a case (long values shortened), for a failure message. */
function describe(payload: Buffer): string {
  const text = payload.toString('latin1');
  const heads = [...text.matchAll(/(?:GET|POST|PUT|PATCH|DELETE) \S+ HTTP\/1\.1\r\n[\s\S]*?\r\n\r\n/g)].map((m) =>
    m[0].replace(/([^\r\n:]+: )([^\r\n]{60})[^\r\n]+/g, '$1$2…'),
  );
  return heads.length ? heads.join(' | ') : JSON.stringify(text.slice(0, 80));
}

const compiledRuntime = fileURLToPath(new URL('../../dist/runtime.js', import.meta.url));

// The runtime under test, in its own process: it reports its URLs, then answers "measure" with its
// RSS (after a "last-resort" collection, which also hands back the heap V8 keeps in reserve: on
// Node 22 and 24 an ordinary one left RSS 140 MB above the baseline with nothing kept) and its
// open file descriptors.
const CHILD = `
import { readdirSync } from 'node:fs';
const { startRuntime } = await import(process.env.RUNTIME_MODULE);
const rt = await startRuntime(JSON.parse(process.env.RUNTIME_OPTIONS));
process.on('message', async (m) => {
  if (m === 'measure') {
    for (let i = 0; i < 3; i++) { globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }); await new Promise((r) => setImmediate(r)); }
    process.send({ rss: process.memoryUsage().rss, fds: readdirSync('/proc/self/fd').length });
  } else if (m === 'close') {
    await rt.close();
    process.exit(0);
  }
});
process.send({ url: rt.url, adminUrl: rt.adminUrl, target: rt.status().target });
`;

interface Measure {
  rss: number;
  fds: number;
}

async function startChild(
  options: Record<string, unknown>,
): Promise<{ child: ChildProcess; urls: { url: string; adminUrl: string; target: string }; measure(): Promise<Measure> }> {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
    env: { ...process.env, RUNTIME_MODULE: pathToFileURL(compiledRuntime).href, RUNTIME_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [urls] = (await once(child, 'message')) as [{ url: string; adminUrl: string; target: string }];
  return {
    child,
    urls,
    async measure() {
      child.send('measure');
      const [m] = (await once(child, 'message')) as [Measure];
      return m;
    },
  };
}

t.test(
  `fuzz: proxy, mock dealer and admin API (seed ${SEED}, ${CASES} cases)`,
  { skip: !existsSync(compiledRuntime) && 'dist/ is not built (npm test builds it)' },
  async (t) => {
    t.comment(`replay with AAP_CHAOS_FUZZ_SEED=${SEED}`);
    const limits = { maxBody: 2 * 1024 * 1024, maxInspect: 64 * 1024 };
    const runtime = await startChild({
      port: 0,
      adminPort: 0,
      env: {},
      scenario: SCENARIO,
      maxBodyBytes: limits.maxBody,
      maxInspectBytes: limits.maxInspect,
      headerTimeoutMs: 1_000,
      bodyTimeoutMs: 1_000,
      upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS,
    });
    const exited = once(runtime.child, 'exit');
    t.teardown(() => {
      if (runtime.child.exitCode === null) runtime.child.kill('SIGKILL');
    });
    const { url: proxyUrl, adminUrl, target: mockUrl } = runtime.urls;
    const targets = { proxy: proxyUrl, mock: mockUrl, admin: adminUrl } as const;
    const stillServes = async () => {
      for (const [name, url] of Object.entries({ proxy: `${proxyUrl}/a2a`, mock: `${mockUrl}/a2a` })) {
        const reply = await request(url, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
        t.equal(reply.status, 200, `the ${name} still serves`);
      }
      t.equal((await request(`${adminUrl}/status`)).status, 200, 'the admin API still serves');
    };
    // Warm up (code, pools, the journal ring's first pages) before taking the baseline.
    for (let i = 0; i < 50; i++)
      await request(`${proxyUrl}/a2a`, { body: skillRequest('inventory.search', { q: 'x' }, i), headers: { 'content-type': 'application/json' } });
    const before = await runtime.measure();
    const r = prng(SEED);
    const plan = Array.from({ length: CASES }, (_, i) => {
      const target = i % 5 === 3 ? 'mock' : i % 5 === 4 ? 'admin' : 'proxy';
      return { target, payload: caseFor(r, targets[target], target, limits) } as const;
    });
    const slow: string[] = [];
    const started = Date.now();
    const sendAll = async (from: number, to: number) => {
      let next = from;
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < to) {
            const i = next++;
            const c = plan[i]!;
            const ms = await sendCase(targets[c.target], c.payload);
            if (ms === 'unbounded') slow.push(`case ${i} (${c.target}), ${c.payload.length} bytes: ${describe(c.payload)}`);
          }
        }),
      );
    };
    await sendAll(0, Math.floor(CASES / 2));
    const halfway = await runtime.measure();
    await sendAll(Math.floor(CASES / 2), CASES);
    t.same(slow, [], `every case answered or closed within ${BOUND_MS} ms (${Date.now() - started} ms in all)`);
    t.equal(runtime.child.exitCode, null, 'the runtime never exited');
    await stillServes();
    let after = await runtime.measure();
    const fdsSettled = async () => {
      after = await runtime.measure();
      return after.fds <= before.fds + 10;
    };
    for (let tries = 0; tries < 30 && !(await fdsSettled()); tries++) await new Promise((resolve) => setTimeout(resolve, 500));
    t.ok(after.fds <= before.fds + 10, `open file descriptors back near baseline (${before.fds} → ${after.fds})`);
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    const grown = (after.rss - halfway.rss) / 1048576;
    t.ok(
      grown < RSS_GROWTH_LIMIT_MB,
      `RSS of the runtime ${mb(before.rss)} → ${mb(halfway.rss)} MB after half the cases → ${mb(after.rss)} MB (grew ${grown.toFixed(0)} MB over the second half, limit ${RSS_GROWTH_LIMIT_MB})`,
    );
    runtime.child.send('close');
    await exited;
  },
);
