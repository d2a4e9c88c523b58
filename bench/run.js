/**
 * `npm run bench`: the proxy's cost against a direct connection, measured in one run.
 *
 * Processes: the orchestrator (this file, idle while load runs), the loopback dealer
 * (upstream.js), one proxy per scenario case (proxy-child.js) and the load generator
 * (load-child.js, autocannon). None shares an event loop with another; all listen on 127.0.0.1
 * and all are stopped by pid at the end.
 *
 * Flags: --quick (1 × 3 s per case, fewer streams and requests; a smoke run, not a result),
 *        --cpu-prof (profile every proxy process; profiles and a self-time summary go to a temp dir).
 */
import { wrkVersion } from './wrk.js';
import { mkdtemp, writeFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { startChild, stopAllChildren } from './children.js';
import { measureFirstEvent } from './sse-client.js';
import { derive, failuresOf, formatReport } from './report.js';
import { summarizeProfile } from './profile-summary.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const cpuProf = process.argv.includes('--cpu-prof');

const MODE = quick
  ? { name: 'quick', runs: 1, seconds: 3, warmupSeconds: 1, sseStreams: 30, rssRequests: 20_000 }
  : { name: 'full', runs: 3, seconds: 10, warmupSeconds: 3, sseStreams: 100, rssRequests: 200_000 };
const CONNECTIONS = 50;
const FIXED_RATE = 200;

/** A JSON-RPC SendMessage for inventory.search, the request every load case sends. */
const SEND_MESSAGE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { role: 'user', messageId: 'bench-1', parts: [{ kind: 'data', data: { type: 'inventory.search.request', filters: { make: ['Honda'], year_min: 2021 } } }] } },
});
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/**
 * The cases, in round-robin order. `scenario` null means straight to the dealer. `expect` is
 * checked on one request before any load, so a case that silently does the wrong thing
 * (a rule that matches when it should not) cannot produce a number.
 */
const CASES = [
  { name: 'direct', label: 'direct to the dealer', scenario: null, expect: 'dealer' },
  { name: 'undici-floor', label: 'reference: minimal undici forwarder (no proxy features)', child: './floor-child.js', expect: 'dealer' },
  { name: 'passthrough', label: 'proxy, passthrough scenario', scenario: 'passthrough.yaml', expect: 'dealer' },
  { name: 'rules-1000', label: 'proxy, 1,000 non-matching rules', scenario: 'rules-1000.yaml', expect: 'dealer' },
  { name: 'body-pointer-noop', label: 'proxy, body-pointer rule that changes nothing', scenario: 'body-pointer-noop.yaml', expect: 'dealer' },
  { name: 'error-every-request', label: 'proxy, error: INTERNAL_ERROR (no dealer call)', scenario: 'error-every-request.yaml', expect: 'error' },
  { name: 'direct-200rps', label: `direct at ${FIXED_RATE} req/s`, scenario: null, expect: 'dealer', fixedRate: FIXED_RATE },
  { name: 'delay-100ms', label: `proxy, delay 100 ms at ${FIXED_RATE} req/s`, scenario: 'delay-100ms.yaml', expect: 'delayed', fixedRate: FIXED_RATE },
];

function log(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function probe(c, url) {
  const start = performance.now();
  const res = await fetch(`${url}/a2a`, { method: 'POST', headers: HEADERS, body: SEND_MESSAGE });
  const elapsed = performance.now() - start;
  const body = await res.json();
  const problem =
    res.status !== 200 ? `HTTP ${res.status}`
    : c.expect === 'error' ? (body.error ? undefined : 'no JSON-RPC error in the reply')
    : !body.result ? `no result in the reply (${JSON.stringify(body).slice(0, 200)})`
    : c.expect === 'delayed' && elapsed < 100 ? `answered in ${elapsed.toFixed(1)} ms, before the 100 ms delay`
    : undefined;
  if (problem) throw new Error(`case ${c.name}: the probe request went wrong: ${problem}`);
}

function loadOptions(url, seconds, fixedRate) {
  if (fixedRate) return { paced: { url: `${url}/a2a`, headers: HEADERS, body: SEND_MESSAGE, connections: CONNECTIONS, seconds, rate: fixedRate } };
  return { url: `${url}/a2a`, method: 'POST', headers: HEADERS, body: SEND_MESSAGE, connections: CONNECTIONS, duration: seconds };
}

let nextRunId = 0;
async function runLoad(loader, options) {
  const reply = await loader.ask({ type: 'run', id: ++nextRunId, options }, 'result');
  if (reply.error) throw new Error(`autocannon failed: ${reply.error}`);
  return reply.result;
}

async function startProxy(scenario, target, execArgv) {
  const child = await startChild('./proxy-child.js', [target, path.join(here, 'scenarios', scenario)], { execArgv, name: `proxy (${scenario})` });
  return { child, url: child.ready.url };
}

function machine() {
  return {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memGb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
  };
}

async function main() {
  const started = Date.now();
  // Other work on the machine skews every figure; the load average is kept with the results as a witness.
  const loadAverageAtStart = os.loadavg().map((v) => Math.round(v * 100) / 100);
  if (loadAverageAtStart[0] > 0.5) log(`note: load average is ${loadAverageAtStart[0]} before the run; other work on the machine will skew the figures`);
  const profileDir = cpuProf ? await mkdtemp(path.join(os.tmpdir(), 'aap-chaos-bench-prof-')) : undefined;
  const proxyExecArgv = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const autocannonVersion = createRequire(import.meta.url)('autocannon/package.json').version;
  const wrk = wrkVersion();

  log(`mode ${MODE.name}: ${MODE.runs} × ${MODE.seconds} s per case, ${CONNECTIONS} connections${cpuProf ? `, profiling proxies into ${profileDir}` : ''}`);
  const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
  const dealerUrl = upstream.ready.url;
  log(`dealer at ${dealerUrl} (reply ${upstream.ready.replyBytes} bytes)`);
  const loader = await startChild('./load-child.js', [], { name: 'load generator' });

  const urls = {};
  const caseOfPid = new Map();
  for (const c of CASES) {
    if (c.child) {
      const floor = await startChild(c.child, [dealerUrl], { name: c.name });
      urls[c.name] = floor.ready.url;
      continue;
    }
    if (!c.scenario) {
      urls[c.name] = dealerUrl;
      continue;
    }
    const proxy = await startProxy(c.scenario, dealerUrl, proxyExecArgv);
    urls[c.name] = proxy.url;
    caseOfPid.set(proxy.child.pid, c.name);
  }

  for (const c of CASES) {
    await probe(c, urls[c.name]);
    log(`warm-up ${c.name} (${MODE.warmupSeconds} s)`);
    await runLoad(loader, loadOptions(urls[c.name], MODE.warmupSeconds, c.fixedRate));
  }

  const runs = Object.fromEntries(CASES.map((c) => [c.name, []]));
  for (let round = 1; round <= MODE.runs; round++) {
    for (const c of CASES) {
      const result = await runLoad(loader, loadOptions(urls[c.name], MODE.seconds, c.fixedRate));
      runs[c.name].push(result);
      log(`round ${round}/${MODE.runs} ${c.name}: ${Math.round(result.reqPerSec)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms`);
    }
  }

  log(`SSE first event: ${MODE.sseStreams} streams each, direct and through the passthrough proxy`);
  const sseSamples = await measureFirstEvent({ direct: dealerUrl, proxy: urls['passthrough'] }, MODE.sseStreams);

  log(`RSS: a fresh passthrough proxy, warm-up, then ${MODE.rssRequests.toLocaleString('en-US')} requests`);
  const rssProxy = await startProxy('passthrough.yaml', dealerUrl, ['--expose-gc', ...proxyExecArgv]);
  caseOfPid.set(rssProxy.child.pid, 'rss');
  const memory = async () => (await rssProxy.child.ask({ type: 'memory' }, 'memory')).memory;
  const idle = await memory();
  await runLoad(loader, loadOptions(rssProxy.url, MODE.warmupSeconds, undefined));
  const warm = await memory();
  // Four equal steps with a reading after each: a leak climbs steadily, allocator settling flattens out.
  const { duration: _ignored, ...fixedAmount } = loadOptions(rssProxy.url, 0, undefined);
  const steps = [];
  for (let i = 0; i < 4; i++) {
    const run = await runLoad(loader, { ...fixedAmount, amount: MODE.rssRequests / 4 });
    steps.push({ requests: (MODE.rssRequests / 4) * (i + 1), reqPerSec: run.reqPerSec, failures: failuresOf(run), memory: await memory() });
  }
  const after = steps[steps.length - 1].memory;

  const results = {
    mode: MODE.name,
    date: new Date().toISOString(),
    node: process.version,
    machine: machine(),
    loadTool: `${wrk && process.env.AAP_CHAOS_BENCH_TOOL !== 'autocannon' ? `wrk ${wrk}` : `autocannon ${autocannonVersion}`} (closed loop, 50 connections); autocannon ${autocannonVersion} (RSS by request count); evenly paced node:http client (fixed rate)`,
    loadAverageAtStart: loadAverageAtStart,
    connections: CONNECTIONS,
    runsPerCase: MODE.runs,
    secondsPerRun: MODE.seconds,
    warmupSeconds: MODE.warmupSeconds,
    upstreamReplyBytes: upstream.ready.replyBytes,
    cases: CASES.map((c) => ({ name: c.name, label: c.label, scenario: c.scenario, fixedRate: c.fixedRate, runs: runs[c.name] })),
    sse: { streams: MODE.sseStreams, samples: sseSamples },
    rss: { requests: MODE.rssRequests, idle, warm, after, steps },
  };
  const derived = derive(results);
  results.targets = derived.targets;
  results.elapsedSeconds = Math.round((Date.now() - started) / 1000);

  await stopAllChildren();
  // A smoke run is not a result: it goes to the temp dir so bench/results.json keeps the last full run.
  const file = quick ? path.join(os.tmpdir(), 'aap-chaos-bench-results.quick.json') : path.join(here, 'results.json');
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(formatReport(results, derived));
  console.log(`\nRaw runs written to ${file}; the whole run took ${results.elapsedSeconds} s.`);

  if (profileDir) {
    for (const f of (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'))) {
      // V8 names a profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile.
      const pid = Number(f.split('.')[3]);
      console.log(`\nProfile of the proxy for case ${caseOfPid.get(pid) ?? '?'} (${path.join(profileDir, f)}):\n${await summarizeProfile(path.join(profileDir, f))}`);
    }
  }
}

const interrupted = () => stopAllChildren().finally(() => process.exit(130));
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);

main().catch(async (err) => {
  console.error(`bench: ${err.message}`);
  await stopAllChildren();
  process.exit(1);
});
