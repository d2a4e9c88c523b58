/**
 * A few cases of the bench side by side, alternating, with CPU per request: for checking one
 * change on a machine others load too, where req/s moves from run to run but each process's CPU
 * per request moves much less. Each case is a proxy (bench/proxy-child.js of a build) with one
 * scenario, or a floor; rounds alternate through the cases so drift hits all of them alike, and
 * the summary gives each case's median CPU per request and req/s, and each against the first case.
 *
 * Usage: node bench/compare.js [--rounds N] [--seconds S] [--cpu-prof]
 *          --case NAME=SCENARIO[@BUILD] ... [--floor NAME=CHILD] ...
 * SCENARIO is a file of bench/scenarios/ (or a path), `rules-N` writes N non-matching rules;
 * BUILD is a directory holding a build's `bench/proxy-child.js` and `dist/` (default: this one);
 * CHILD is a floor's script of bench/ (floor-child.js, error-floor-child.js).
 * Env: variables set for this command reach every proxy. Stops every child by pid at the end.
 */
import { mkdir, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopAllChildren } from './children.js';
import { cpuMsOf, mainThreadCpuMsOf } from './process-cpu.js';
import { keepWorkDir, removeWorkDir, workDir } from './work-dir.js';
import { median } from './stats.js';
import { summarizeProfile } from './profile-summary.js';
import { writeNonMatchingRules } from './rules-scenario.js';
import { SEND_MESSAGE, HEADERS } from './request.js';
import { benchArgs } from './cli-args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = benchArgs('compare.js', '[--rounds N] [--seconds S] [--cpu-prof] --case NAME=SCENARIO[@BUILD] ... [--floor NAME=CHILD] ...');
const rounds = args.number('--rounds', 5);
const seconds = args.number('--seconds', 3);
const cpuProf = args.flag('--cpu-prof');
const CONNECTIONS = 50;
const cases = args.cases();

let nextRunId = 0;
async function run(loader, url) {
  const options = { url: `${url}/a2a`, method: 'POST', headers: HEADERS, body: SEND_MESSAGE, connections: CONNECTIONS, duration: seconds };
  const reply = await loader.ask({ type: 'run', id: ++nextRunId, options }, 'result');
  if (reply.error) throw new Error(`load failed: ${reply.error}`);
  return reply.result;
}

async function main() {
  const work = workDir('aap-chaos-compare-');
  const profileDir = cpuProf ? path.join(work, 'profiles') : undefined;
  if (profileDir) await mkdir(profileDir);
  const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
  const loader = await startChild('./load-child.js', [], { name: 'load generator' });
  for (const c of cases) {
    if (c.child) {
      c.proc = await startChild(c.child, [upstream.ready.url], { name: c.name });
      continue;
    }
    let file = c.scenario;
    const generated = /^rules-(\d+)$/.exec(file);
    if (generated) await writeNonMatchingRules((file = path.join(work, `${file}.yaml`)), Number(generated[1]));
    else if (!path.isAbsolute(file) && !file.includes('/')) file = path.join(here, 'scenarios', file);
    const env = profileDir ? { AAP_CHAOS_BENCH_PROFILE_DIR: profileDir } : undefined;
    c.proc = await startChild(new URL(`file://${path.join(c.build, 'bench', 'proxy-child.js')}`).href, [upstream.ready.url, file], { name: c.name, env });
  }
  const byPid = new Map(cases.map((c) => [c.proc.pid, c.name]));
  for (const c of cases) await run(loader, c.proc.ready.url); // warm-up, one run each
  for (const c of cases) c.runs = [];
  for (let r = 1; r <= rounds; r++) {
    // Alternating order from round to round: no case always follows the same neighbour.
    const order = r % 2 ? cases : [...cases].reverse();
    for (const c of order) {
      const before = cpuMsOf(c.proc.pid);
      const mainBefore = mainThreadCpuMsOf(c.proc.pid);
      const result = await run(loader, c.proc.ready.url);
      const cpuUs = ((cpuMsOf(c.proc.pid) - before) * 1000) / result.requests;
      const mainUs = ((mainThreadCpuMsOf(c.proc.pid) - mainBefore) * 1000) / result.requests;
      c.runs.push({ reqPerSec: result.reqPerSec, cpuUs, mainUs, p99: result.latencyMs.p99, failures: result.non2xx + result.errors + result.timeouts });
      process.stderr.write(
        `round ${r}/${rounds} ${c.name}: ${Math.round(result.reqPerSec)} req/s, ${cpuUs.toFixed(1)} µs/req (main thread ${mainUs.toFixed(1)}), p99 ${result.latencyMs.p99.toFixed(2)} ms\n`,
      );
    }
  }
  const base = cases[0];
  const med = (c, key) => median(c.runs.map((x) => x[key]));
  // Ratios of the same round, then their median: a round's drift cancels out of its own ratio.
  const perRound = (c, key) => median(c.runs.map((x, i) => x[key] / base.runs[i][key]));
  console.log(`\n${rounds} rounds × ${seconds} s, ${CONNECTIONS} connections, load average ${os.loadavg()[0].toFixed(1)} at the end`);
  console.log('| case | CPU µs/req | of which main thread | req/s | p99 ms | CPU vs first | main thread vs first | req/s vs first | failed |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of cases) {
    const failed = c.runs.reduce((n, x) => n + x.failures, 0);
    console.log(
      `| ${c.name} | ${med(c, 'cpuUs').toFixed(1)} | ${med(c, 'mainUs').toFixed(1)} | ${Math.round(med(c, 'reqPerSec'))} | ${med(c, 'p99').toFixed(2)} | ${perRound(c, 'cpuUs').toFixed(3)}× | ${perRound(c, 'mainUs').toFixed(3)}× | ${perRound(c, 'reqPerSec').toFixed(3)}× | ${failed} |`,
    );
  }
  console.log(
    '"main thread": the CPU of the thread running JavaScript; the rest is V8\'s and libuv\'s helper threads (concurrent marking and sweeping, compiling).',
  );
  await stopAllChildren();
  if (profileDir) {
    for (const f of (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'))) {
      const file = path.join(profileDir, f);
      console.log(`\nProfile of ${byPid.get(Number(f.split('.')[3])) ?? '?'} (${file}):\n${await summarizeProfile(file)}`);
    }
    keepWorkDir(work);
  } else removeWorkDir(work);
}

process.once('SIGINT', () => stopAllChildren().finally(() => process.exit(130)));
main().catch(async (err) => {
  console.error(`bench/compare.js: ${err.message}`);
  await stopAllChildren();
  process.exit(1);
});
