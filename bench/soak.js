/**
 * `npm run soak -- --minutes M [--rate R] [--plot FILE] [--keep]`: the proxy held at a steady
 * loopback rate for M minutes (default 2) as shared staging runs it, watched for growth.
 *
 * The proxy (the built CLI, with bench/soak/probe.js preloaded) runs the `full-gauntlet` faults in
 * front of its embedded mock dealer with streaming on, rotates its journal every 1 MiB and its
 * audit log every 4 KiB (both gzip-compressed, all files kept so every line can be counted), and,
 * when Debian's redis-server is installed, keeps its state in a Redis that is restarted halfway.
 * Around it: buyers at R requests per second (default 50; one in five streamed), a QA session
 * swapping the scenario or switching a rule every 3 s, a dashboard's poll and a live /events
 * subscriber. Every 5 s it samples the proxy's RSS and heap (after a full collection), open
 * file descriptors and event-loop delay, and prints them every 30 s with journal lines written against requests answered.
 *
 * It fails (exit 1) when RSS or open file descriptors keep growing after the warm-up, when an
 * answered request has no journal line (or two), when the event-loop delay p99 passes 50 ms, or
 * when the audit chain does not verify across its rotated files (bench/soak/verdict.js says why
 * each limit is what it is). It ends with one summary line and writes an SVG plot of its samples.
 * Everything listens on 127.0.0.1; every process it starts is stopped by pid at the end.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redisInstalled, startRedis } from './redis-server.js';
import { journalIds, lineCounter, rotatedFiles } from './soak/journal-files.js';
import { startOperator } from './soak/operator.js';
import { plotSamples } from './soak/plot.js';
import { startTraffic } from './soak/traffic.js';
import { failures, LIMITS } from './soak/verdict.js';
import { keepWorkDir, removeWorkDir, workDir } from './work-dir.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(root, 'bin', 'aap-chaos.js');
const SAMPLE_MS = 5_000;
const PRINT_EVERY = 6; // samples: every 30 s

function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

const minutes = Number(flag('minutes', '2'));
const rate = Number(flag('rate', '50'));
const keep = process.argv.includes('--keep');
if (!(minutes > 0 && minutes <= 24 * 60) || !(rate > 0 && rate <= 2_000)) {
  console.error('soak: --minutes must be above 0 (at most 1440) and --rate from 1 to 2000 requests per second');
  process.exit(2);
}
if (!existsSync(path.join(root, 'dist', 'cli.js'))) {
  console.error('soak: no build in dist/: run `npm run build` first (npm run soak does)');
  process.exit(2);
}
// The warm-up: half the run, at most a minute. The journal ring fills to its bound as the proxy
// warms up: a short run gives it a ring that fills within the warm-up (rate × warm-up / 2 lines),
// so its growth to the bound is not read as a leak; a run of 10 minutes or more keeps the default
// 10 000, which fills within the first half.
const warmupMs = Math.min(60_000, minutes * 30_000);
const journalRing = minutes >= 10 ? undefined : Math.max(100, Math.round((rate * warmupMs) / 2_000));
const plotFile = path.resolve(flag('plot', path.join(os.tmpdir(), `aap-chaos-soak-${minutes}min.svg`)));
const log = (line) => console.log(`soak: ${line}`);

/** The proxy under soak, as a child process with its probe; resolves once it listens. */
async function startProxy(dir, stateUrl) {
  const args = [
    ...['--port', '0', '--admin-port', '0', '--scenario', 'full-gauntlet', '--mock-streaming', '--client-key', 'header:x-buyer'],
    ...['--journal', path.join(dir, 'journal.jsonl'), '--journal-max-bytes', '1M', '--journal-keep', '100000', '--journal-compress'],
    ...['--audit', path.join(dir, 'audit.jsonl'), '--audit-max-bytes', '4K', '--audit-keep', '100000', '--audit-compress'],
    ...(stateUrl ? ['--state', stateUrl] : []),
    ...(journalRing ? ['--journal-ring', String(journalRing)] : []),
  ];
  const probe = pathToFileURL(path.join(root, 'bench', 'soak', 'probe.js')).href;
  const child = spawn(process.execPath, ['--expose-gc', '--import', probe, BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, AAP_CHAOS_STATE: '' },
  });
  let out = '';
  const warnings = [];
  child.stderr.on('data', (d) => warnings.push(...d.toString().split('\n').filter(Boolean)));
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.includes('admin API on ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited with ${code} before listening: ${out}${warnings.join('\n')}`)));
  });
  const url = /proxy on (http:\/\/[\d.:]+)/.exec(out)[1];
  const adminUrl = /admin API on (http:\/\/[\d.:]+)/.exec(out)[1];
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const sample = () =>
    new Promise((resolve) => {
      const onMessage = (m) => {
        if (m?.type !== 'sample') return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.send({ type: 'sample' });
    });
  return { child, url, adminUrl, exited, warnings, sample, resetLoop: () => child.send({ type: 'reset' }) };
}

/**
 * An idle Node process with the same probe: how late an event loop that does nothing runs on
 * this machine now. On a busy machine (CI runs test files beside the soak) every process is
 * late; the proxy's delay is judged only when this baseline leaves room for it.
 */
async function startBaseline() {
  const probe = pathToFileURL(path.join(root, 'bench', 'soak', 'probe.js')).href;
  const child = spawn(process.execPath, ['--import', probe, '-e', 'setInterval(() => {}, 60_000)'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    child,
    resetLoop: () => child.send({ type: 'reset' }),
    sample: () =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send({ type: 'sample' });
      }),
  };
}

/** One sample: the proxy's own figures, its CPU since the last one, and the journal's lines so far. */
async function takeSample(proxy, baseline, started, countLines, traffic, lastCpu) {
  const [probe, journal, idle] = await Promise.all([proxy.sample(), countLines(), baseline.sample()]);
  const cpu = cpuSecondsOf(proxy.child.pid);
  const now = performance.now();
  const sample = {
    minute: (now - started) / 60_000,
    rssMb: probe.rss / 1024 / 1024,
    heapMb: probe.heapUsed / 1024 / 1024,
    heapTotalMb: probe.heapTotal / 1024 / 1024,
    externalMb: probe.external / 1024 / 1024,
    fds: probe.fds,
    loopP99Ms: probe.loopP99Ms,
    loopMaxMs: probe.loopMaxMs,
    runLoopP99Ms: probe.runLoopP99Ms,
    idleLoopP99Ms: idle.loopP99Ms,
    runIdleLoopP99Ms: idle.runLoopP99Ms,
    cpuPercent: lastCpu ? (100 * (cpu - lastCpu.cpu)) / ((now - lastCpu.at) / 1000) : 0,
    journalLines: journal.lines,
    journalFiles: journal.files,
    answered: traffic.counts.answered,
    sent: traffic.counts.sent,
  };
  lastCpu.cpu = cpu;
  lastCpu.at = now;
  return sample;
}

/** User and system CPU seconds of a process, from /proc (Linux). */
function cpuSecondsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const printed = (s) =>
  `${s.minute.toFixed(1).padStart(5)} min  RSS ${s.rssMb.toFixed(1)} MB  heap ${s.heapMb.toFixed(1)} MB (of ${s.heapTotalMb.toFixed(0)}, external ${s.externalMb.toFixed(1)})  fds ${s.fds}  loop p99 ${s.loopP99Ms} ms (max ${s.loopMaxMs}; idle process ${s.idleLoopP99Ms})  CPU ${s.cpuPercent.toFixed(0)}%  journal ${s.journalLines} lines in ${s.journalFiles} files / ${s.answered} answered (${s.sent} sent)`;

async function main() {
  const dir = workDir('aap-chaos-soak-');
  const redis = redisInstalled() ? await startRedis(dir) : undefined;
  const proxy = await startProxy(dir, redis?.url);
  const baseline = await startBaseline();
  // Ctrl-C ends the run: the proxy and Redis are stopped by pid, not left behind.
  process.once('SIGINT', () => {
    proxy.child.kill('SIGKILL');
    baseline.child.kill('SIGKILL');
    void redis?.stop().finally(() => process.exit(130));
  });
  log(
    `${minutes} min at ${rate} req/s through ${proxy.url} (full-gauntlet, streaming, rotation every 1 MiB / 4 KiB, journal ring ${journalRing ?? 10_000}, ${redis ? `Redis ${redis.url}, restarted halfway` : 'no redis-server: memory state'}); files in ${dir}`,
  );
  const started = performance.now();
  const traffic = startTraffic(proxy.url, rate);
  const operator = startOperator(proxy.adminUrl);
  const countLines = lineCounter(path.join(dir, 'journal.jsonl'));
  const samples = [];
  const marks = [];
  const lastCpu = { cpu: cpuSecondsOf(proxy.child.pid), at: started };
  const endAt = started + minutes * 60_000;
  let warmedUp = false;
  let restarted = !redis;
  try {
    for (let n = 1; performance.now() < endAt; n++) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(started + n * SAMPLE_MS, endAt) - performance.now())));
      if (!warmedUp && performance.now() - started >= warmupMs) {
        warmedUp = true;
        proxy.resetLoop();
        baseline.resetLoop();
        marks.push({ minute: (performance.now() - started) / 60_000, label: 'warm-up ends' });
      }
      if (!restarted && performance.now() - started >= (minutes * 60_000) / 2) {
        restarted = true;
        marks.push({ minute: (performance.now() - started) / 60_000, label: 'Redis restarted' });
        log('stopping Redis for 3 s');
        await redis.stop();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        Object.assign(redis, await startRedis(dir, redis.port));
      }
      const sample = await takeSample(proxy, baseline, started, countLines, traffic, lastCpu);
      samples.push(sample);
      if (n % PRINT_EVERY === 0) log(printed(sample));
    }
    await traffic.stop();
    operator.stop();
    const last = await takeSample(proxy, baseline, started, countLines, traffic, lastCpu);
    if (samples.length === 0) samples.push(last);
    process.kill(proxy.child.pid, 'SIGTERM');
    const exit = await proxy.exited;
    return await judge({ dir, proxy, traffic, operator, samples, last, marks, exit });
  } finally {
    if (proxy.child.exitCode === null && proxy.child.signalCode === null) process.kill(proxy.child.pid, 'SIGKILL');
    baseline.child.kill('SIGKILL');
    await redis?.stop();
    if (keep) keepWorkDir(dir);
    else removeWorkDir(dir);
  }
}

/** Counts the lines, verifies the audit chain, writes the plot, prints the summary line; resolves with the exit code. */
async function judge({ dir, proxy, traffic, operator, samples, last, marks, exit }) {
  const journal = await journalIds(path.join(dir, 'journal.jsonl'));
  let lost = 0;
  for (const id of traffic.answeredIds) if (!journal.ids.has(id)) lost++;
  const duplicated = [...journal.ids].filter(([id, n]) => String(id).startsWith('soak-') && n > 1).length;
  const auditFiles = await rotatedFiles(path.join(dir, 'audit.jsonl'));
  const audit = await verifyAudit(auditFiles);
  const loopP99Ms = last.runLoopP99Ms;
  const idleLoopP99Ms = last.runIdleLoopP99Ms;
  const verdict = failures({ samples, halfMinute: minutes / 2, lost, duplicated, broken: journal.broken, loopP99Ms, idleLoopP99Ms, auditOk: audit.ok });
  if (exit !== 0) verdict.out.push(`the proxy exited with ${exit} on SIGTERM`);
  await writeFile(plotFile, plotSamples(samples, { title: `aap-chaos soak: ${minutes} min at ${rate} req/s`, marks }));
  await writeFile(plotFile.replace(/\.svg$/, '') + '.json', JSON.stringify({ minutes, rate, limits: LIMITS, samples, marks }, null, 1));
  for (const w of proxy.warnings.slice(0, 10)) log(`proxy stderr: ${w}`);
  const c = traffic.counts;
  log(
    `${c.sent} sent, ${c.answered} answered, ${c.failed} failed before an answer (connection faults); ${operator.counts.changes} fault changes, ${operator.counts.adminOk} admin answers (${operator.counts.adminFailed} failed), ${operator.counts.events} /events messages; plot ${plotFile}`,
  );
  for (const f of verdict.out) log(`FAIL: ${f}`);
  const cpu = samples.reduce((s, x) => s + x.cpuPercent, 0) / samples.length;
  const summary =
    `${verdict.out.length === 0 ? 'PASS' : 'FAIL'}: ${minutes} min at ${rate} req/s; ${c.answered} answered, ${journal.lines} journal lines in ${journal.files} files, ${lost} lost; ` +
    `audit ${audit.entries} entries in ${auditFiles.length} files, ${audit.ok ? 'chain intact' : 'chain broken'}; RSS ${last.rssMb.toFixed(1)} MB (${signed(verdict.rss)} MB over the second half), ` +
    `fds ${last.fds} (${signed(verdict.fds)}), event-loop p99 ${loopP99Ms} ms${verdict.loopJudged ? '' : ` (not judged: an idle process's p99 was ${idleLoopP99Ms} ms, the machine is busy)`}, proxy CPU ${cpu.toFixed(0)}%`;
  console.log(`soak ${summary}`);
  return verdict.out.length === 0 ? 0 : 1;
}

const signed = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(1)}`;

/** `aap-chaos audit verify` over every audit file, as an operator would run it. */
function verifyAudit(files) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'audit', 'verify', ...files], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code !== 0) log(`audit verify: ${out.trim()}`);
      resolve({ ok: code === 0, entries: Number(/(\d+) entries/.exec(out)?.[1] ?? 0) });
    });
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`soak: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
