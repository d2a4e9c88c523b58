/**
 * `npm run bench`: the proxy's cost against a direct connection, measured in one run beside two
 * Node floors (a minimal undici forwarder, a plain node:http error server) and, when installed,
 * nginx as a reference.
 *
 * Processes: the orchestrator (this file, idle while load runs), the loopback dealer
 * (upstream.js), one proxy per scenario case (proxy-child.js), the floors, nginx, a live /events
 * subscriber (events-child.js) and the load generator (load-child.js: wrk or autocannon). None
 * shares an event loop with another; all listen on 127.0.0.1 and all are stopped by pid at the end.
 *
 * Flags: --quick (1 × 1 s per case, no warm-up, fewer streams and requests; a smoke run, not a result),
 *        --cpu-prof (profile every proxy process; profiles and a self-time summary go to a temp dir).
 */
import { wrkVersion } from './wrk.js';
import { writeFile, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { startChild, stopAllChildren } from './children.js';
import { measureFirstEvent } from './sse-client.js';
import { cpuPerRequestUs, derive, failuresOf, formatReport } from './report.js';
import { cpuMsOf } from './process-cpu.js';
import { summarizeProfile } from './profile-summary.js';
import { nginxBinary, startNginx } from './nginx.js';
import { writeNonMatchingRules } from './rules-scenario.js';
import { SEND_MESSAGE, HEADERS } from './request.js';
import { keepWorkDir, removeWorkDir, workDir } from './work-dir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const cpuProf = process.argv.includes('--cpu-prof');

const MODE = quick
  ? { name: 'quick', runs: 1, seconds: 1, warmupSeconds: 0, sseStreams: 20, rssRequests: 2_000, rssWarmupRequests: 500 }
  : { name: 'full', runs: 3, seconds: 8, warmupSeconds: 2, sseStreams: 100, rssRequests: 200_000, rssWarmupRequests: 12_000 };
const CONNECTIONS = 50;
const FIXED_RATE = 200;
const LOAD_TIME_RULES = 10_000;

/**
 * The cases, in round-robin order. `scenario` null means straight to the dealer; `child` is a
 * floor; `nginx` the reference. `expect` is checked on one request (a few for `refusing`) before
 * any load, so a case that silently does the wrong thing (a rule that matches when it should not)
 * cannot produce a number.
 */
const CASES = [
  { name: 'direct', label: 'direct to the dealer', scenario: null, expect: 'dealer' },
  { name: 'nginx', label: 'reference: nginx reverse proxy (C, keep-alive upstream)', nginx: true, expect: 'dealer' },
  { name: 'http-proxy-3', label: 'peer: http-proxy-3 forwarding (keep-alive agent)', child: './http-proxy-child.js', expect: 'dealer' },
  { name: 'mockttp', label: 'peer: mockttp forwarding (forAnyRequest().thenForwardTo)', child: './mockttp-child.js', expect: 'dealer' },
  { name: 'undici-floor', label: 'floor: minimal undici forwarder (no proxy features)', child: './floor-child.js', expect: 'dealer' },
  { name: 'error-floor', label: 'floor: plain node:http INTERNAL_ERROR server (parse, fresh ULID)', child: './error-floor-child.js', expect: 'error' },
  { name: 'passthrough', label: 'proxy, passthrough scenario', scenario: 'passthrough.yaml', expect: 'dealer' },
  { name: 'rules-1000', label: 'proxy, 1,000 non-matching rules', scenario: 'rules-1000.yaml', expect: 'dealer' },
  // Written into the run's temp directory at start (bench/rules-scenario.js), as the load-time case's file is.
  { name: 'rules-10000', label: 'proxy, 10,000 non-matching rules', scenario: `rules-${LOAD_TIME_RULES}.yaml`, generated: LOAD_TIME_RULES, expect: 'dealer' },
  { name: 'body-pointer-noop', label: 'proxy, body-pointer rule that changes nothing', scenario: 'body-pointer-noop.yaml', expect: 'dealer' },
  { name: 'error-every-request', label: 'proxy, error: INTERNAL_ERROR (no dealer call)', scenario: 'error-every-request.yaml', expect: 'error' },
  { name: 'rate-limit', label: 'proxy, rate_limit 10/s refusing most requests', scenario: 'rate-limit-most.yaml', expect: 'refusing' },
  { name: 'require-extension', label: 'proxy, require: {extension: true} refusing every request', scenario: 'require-extension.yaml', expect: 'error' },
  {
    name: 'error-journal-events',
    label: 'proxy, error path with --journal FILE and a live /events subscriber',
    scenario: 'error-every-request.yaml',
    journal: true,
    expect: 'error',
  },
  { name: 'direct-200rps', label: `direct at ${FIXED_RATE} req/s`, scenario: null, expect: 'dealer', fixedRate: FIXED_RATE },
  { name: 'delay-100ms', label: `proxy, delay 100 ms at ${FIXED_RATE} req/s`, scenario: 'delay-100ms.yaml', expect: 'delayed', fixedRate: FIXED_RATE },
];

function log(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function probe(c, url) {
  if (c.expect === 'refusing') {
    // A rate limit lets the first requests of its window through: some of a dozen must be refused.
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${url}/a2a`, { method: 'POST', headers: HEADERS, body: SEND_MESSAGE });
      if ((await res.json()).error) return;
    }
    throw new Error(`case ${c.name}: the probe requests went wrong: none of 12 was refused`);
  }
  const start = performance.now();
  const res = await fetch(`${url}/a2a`, { method: 'POST', headers: HEADERS, body: SEND_MESSAGE });
  const elapsed = performance.now() - start;
  const body = await res.json();
  const problem =
    c.expect === 'error'
      ? body.error
        ? undefined
        : `no JSON-RPC error in the reply (HTTP ${res.status})`
      : res.status !== 200
        ? `HTTP ${res.status}`
        : !body.result
          ? `no result in the reply (${JSON.stringify(body).slice(0, 200)})`
          : c.expect === 'delayed' && elapsed < 100
            ? `answered in ${elapsed.toFixed(1)} ms, before the 100 ms delay`
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

async function startProxy(scenario, target, execArgv, journalFile) {
  const file = path.isAbsolute(scenario) ? scenario : path.join(here, 'scenarios', scenario);
  const child = await startChild('./proxy-child.js', [target, file, ...(journalFile ? [journalFile] : [])], {
    execArgv,
    name: `proxy (${path.basename(scenario)})`,
  });
  return { child, url: child.ready.url, adminUrl: child.ready.adminUrl };
}

/** The sum of aap_chaos_requests_total over its labels, read from the admin API's /metrics. */
async function requestsCounted(adminUrl) {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith('aap_chaos_requests_total')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

/**
 * The journal case's check once its load is over: every request the proxy counted is one line in
 * the file and one message to the subscriber (or a drop the hub reported to it). The subscriber
 * is polled for a bounded time, since its last messages may still be on the way.
 */
async function journalCheck(proxy, subscriber, journalFile) {
  const { journalDropped } = await proxy.child.ask({ type: 'flush' }, 'flushed');
  const requests = await requestsCounted(proxy.adminUrl);
  const fileLines = (await readFile(journalFile, 'utf8')).split('\n').length - 1;
  let events;
  for (let i = 0; i < 100; i++) {
    events = await subscriber.ask({ type: 'count' }, 'count');
    if (events.received + events.dropped >= requests) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { requests, fileLines, journalDropped, eventsReceived: events.received, eventsDropped: events.dropped };
}

/** RSS of a fresh proxy: idle, after warm-up, then after each of four equal steps of `total` requests. */
async function measureRss(loader, scenario, dealerUrl, execArgv, total, caseOfPid, name) {
  const proxy = await startProxy(scenario, dealerUrl, ['--expose-gc', ...execArgv]);
  caseOfPid.set(proxy.child.pid, name);
  const memory = async () => (await proxy.child.ask({ type: 'memory' }, 'memory')).memory;
  const idle = await memory();
  const { duration: _ignored, ...fixedAmount } = loadOptions(proxy.url, 0, undefined);
  // The warm-up fills the journal ring (10,000 lines by default) first: a bounded ring filling up is
  // by design, and would otherwise be read as growth.
  await runLoad(loader, { ...fixedAmount, amount: MODE.rssWarmupRequests });
  const warm = await memory();
  // Four equal steps with a reading after each: a leak climbs steadily, allocator settling flattens out.
  const steps = [];
  for (let i = 0; i < 4; i++) {
    const run = await runLoad(loader, { ...fixedAmount, amount: total / 4 });
    steps.push({ requests: (total / 4) * (i + 1), reqPerSec: run.reqPerSec, failures: failuresOf(run), memory: await memory() });
  }
  await proxy.child.stop();
  return { scenario, requests: total, idle, warm, after: steps[steps.length - 1].memory, steps };
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
  const profileDir = cpuProf ? workDir('aap-chaos-bench-prof-') : undefined;
  // Each proxy profiles itself once it serves (bench/proxy-child.js), so start-up stays out of the shares.
  if (profileDir) process.env.AAP_CHAOS_BENCH_PROFILE_DIR = profileDir;
  const proxyExecArgv = [];
  const autocannonVersion = createRequire(import.meta.url)('autocannon/package.json').version;
  const wrk = wrkVersion();

  log(`mode ${MODE.name}: ${MODE.runs} × ${MODE.seconds} s per case, ${CONNECTIONS} connections${cpuProf ? `, profiling proxies into ${profileDir}` : ''}`);
  const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
  const dealerUrl = upstream.ready.url;
  log(`dealer at ${dealerUrl} (reply ${upstream.ready.replyBytes} bytes)`);
  const loader = await startChild('./load-child.js', [], { name: 'load generator' });

  const nginx = nginxBinary();
  if (!nginx) log('note: nginx is not installed (apt-get install nginx); its reference row is skipped');
  const cases = CASES.filter((c) => !c.nginx || nginx);
  const work = workDir('aap-chaos-bench-');
  const journalFile = path.join(work, 'journal.jsonl');
  const bigScenario = path.join(work, `rules-${LOAD_TIME_RULES}.yaml`);
  await writeNonMatchingRules(bigScenario, LOAD_TIME_RULES);

  const urls = {};
  const caseOfPid = new Map();
  let journalProxy;
  // Started side by side: on a busy machine one after another takes longer than the quick run's load.
  const servers = await Promise.all(
    cases.map(async (c) => {
      if (c.nginx) return { url: (await startNginx(nginx, dealerUrl, work)).url };
      if (c.child) {
        const child = await startChild(c.child, [dealerUrl], { name: c.name });
        return { url: child.ready.url, pid: child.pid };
      }
      if (!c.scenario) return { url: dealerUrl, pid: upstream.pid };
      return startProxy(c.generated ? bigScenario : c.scenario, dealerUrl, proxyExecArgv, c.journal ? journalFile : undefined);
    }),
  );
  /** The process serving each case, whose CPU per request is read (nginx's workers are not). */
  const pids = {};
  cases.forEach((c, i) => {
    urls[c.name] = servers[i].url;
    pids[c.name] = servers[i].pid ?? servers[i].child?.pid;
    if (servers[i].child) caseOfPid.set(servers[i].child.pid, c.name);
    if (c.journal) journalProxy = servers[i];
  });
  const subscriber = await startChild('./events-child.js', [journalProxy.adminUrl], { name: '/events subscriber' });

  for (const c of cases) {
    await probe(c, urls[c.name]);
    // A quick run has no warm-up: the first of its seconds warms the code, which a smoke run can afford.
    if (MODE.warmupSeconds === 0) continue;
    log(`warm-up ${c.name} (${MODE.warmupSeconds} s)`);
    await runLoad(loader, loadOptions(urls[c.name], MODE.warmupSeconds, c.fixedRate));
  }

  const runs = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let round = 1; round <= MODE.runs; round++) {
    for (const c of cases) {
      const cpuBefore = cpuMsOf(pids[c.name]);
      const result = await runLoad(loader, loadOptions(urls[c.name], MODE.seconds, c.fixedRate));
      const cpuAfter = cpuMsOf(pids[c.name]);
      if (cpuBefore !== undefined && cpuAfter !== undefined) result.serverCpuMs = cpuAfter - cpuBefore;
      runs[c.name].push(result);
      const cpu = result.serverCpuMs === undefined ? '' : `, server CPU ${cpuPerRequestUs(result).toFixed(1)} µs/req`;
      log(
        `round ${round}/${MODE.runs} ${c.name}: ${Math.round(result.reqPerSec)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms${cpu}`,
      );
    }
  }
  const journal = await journalCheck(journalProxy, subscriber, journalFile);
  log(
    `journal: ${journal.requests} requests counted, ${journal.fileLines} lines in the file, ${journal.eventsReceived} events received (${journal.eventsDropped} dropped)`,
  );

  log(`SSE first event: ${MODE.sseStreams} streams each, direct and through the passthrough proxy`);
  const sseSamples = await measureFirstEvent({ direct: dealerUrl, proxy: urls['passthrough'] }, MODE.sseStreams);

  log(`load time: a scenario of ${LOAD_TIME_RULES.toLocaleString('en-US')} non-matching rules`);
  const bigProxy = await startProxy(bigScenario, dealerUrl, []);
  await probe({ name: `rules-${LOAD_TIME_RULES}`, expect: 'dealer' }, bigProxy.url);
  const loadTime = { rules: LOAD_TIME_RULES, servingMs: bigProxy.child.ready.loadMs };
  await bigProxy.child.stop();

  const rss = [];
  for (const [name, scenario] of [
    ['rss-passthrough', 'passthrough.yaml'],
    ['rss-error', 'error-every-request.yaml'],
  ]) {
    log(`RSS: a fresh proxy (${scenario}), warm-up, then ${MODE.rssRequests.toLocaleString('en-US')} requests`);
    rss.push(await measureRss(loader, scenario, dealerUrl, proxyExecArgv, MODE.rssRequests, caseOfPid, name));
  }

  const results = {
    mode: MODE.name,
    date: new Date().toISOString(),
    node: process.version,
    machine: machine(),
    loadTool: `${wrk && process.env.AAP_CHAOS_BENCH_TOOL !== 'autocannon' ? `wrk ${wrk}` : `autocannon ${autocannonVersion}`} (closed loop, ${CONNECTIONS} connections); autocannon ${autocannonVersion} (RSS by request count); evenly paced node:http client (fixed rate)`,
    loadAverageAtStart: loadAverageAtStart,
    connections: CONNECTIONS,
    runsPerCase: MODE.runs,
    secondsPerRun: MODE.seconds,
    warmupSeconds: MODE.warmupSeconds,
    upstreamReplyBytes: upstream.ready.replyBytes,
    nginx: nginx ?? null,
    cases: cases.map((c) => ({ name: c.name, label: c.label, scenario: c.scenario, fixedRate: c.fixedRate, runs: runs[c.name] })),
    journal,
    loadTime,
    sse: { streams: MODE.sseStreams, samples: sseSamples },
    rss,
  };
  const derived = derive(results);
  results.targets = derived.targets;
  results.elapsedSeconds = Math.round((Date.now() - started) / 1000);

  await stopAllChildren();
  removeWorkDir(work);
  // A smoke run is not a result: it goes to the temp dir so bench/results.json keeps the last full run.
  const file = quick ? path.join(os.tmpdir(), 'aap-chaos-bench-results.quick.json') : path.join(here, 'results.json');
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(formatReport(results, derived));
  console.log(`\nRaw runs written to ${file}; the whole run took ${results.elapsedSeconds} s.`);

  if (profileDir) {
    keepWorkDir(profileDir);
    for (const f of (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'))) {
      // V8 names a profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile.
      const pid = Number(f.split('.')[3]);
      console.log(
        `\nProfile of the proxy for case ${caseOfPid.get(pid) ?? '?'} (${path.join(profileDir, f)}):\n${await summarizeProfile(path.join(profileDir, f))}`,
      );
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
