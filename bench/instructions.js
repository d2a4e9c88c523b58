/**
 * Instructions per request, counted by valgrind's callgrind: a measure that other work on the
 * machine does not move (it counts what the process executes, not how long it took), so a change
 * that saves a few microseconds per request shows even on a loaded machine. Each case is a proxy
 * (bench/proxy-child.js of a build, with one scenario) or a floor, run under callgrind with its
 * instrumentation off; after a warm-up that lets V8 compile the hot code, it is switched on
 * (`callgrind_control -i on`) for a fixed number of requests (sent over a few keep-alive
 * connections), and a dump then holds what they cost. The count still moves by a few per cent
 * between runs of one build: V8 keeps compiling, and a major collection may or may not fall in
 * the window; compare medians of several rounds.
 *
 * Usage: node bench/instructions.js [--requests N] [--warmup N] [--connections C] [--repeat R]
 *          --case NAME=SCENARIO[@BUILD] ... [--floor NAME=CHILD] ... [--keep DIR]
 * SCENARIO and BUILD as in bench/compare.js; CHILD a floor script of bench/. --keep DIR keeps each
 * callgrind output there, for `callgrind_annotate` (native frames only: JIT code has no symbols).
 * Cases are run one after another (R times each, alternating); valgrind makes each about 50× slower.
 */
import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopAllChildren } from './children.js';
import { median } from './stats.js';
import { writeNonMatchingRules } from './rules-scenario.js';
import { SEND_MESSAGE, HEADERS } from './request.js';
import { benchArgs } from './cli-args.js';
import { removeWorkDir, workDir } from './work-dir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = benchArgs(
  'instructions.js',
  '[--requests N] [--warmup N] [--connections C] [--repeat R] [--keep DIR] --case NAME=SCENARIO[@BUILD] ... [--floor NAME=CHILD] ...',
);
const requests = args.number('--requests', 2_000);
const warmup = args.number('--warmup', 3_000);
const connections = args.number('--connections', 4);
const repeat = args.number('--repeat', 1);
const [keep] = args.values('--keep');
const cases = args.cases().map((c) => ({ ...c, script: c.child ?? path.join(c.build, 'bench', 'proxy-child.js') }));

/** `total` requests over `connections` keep-alive connections; rejects on any non-2xx reply of a dealer case. */
function send(url, total) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let sent = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request(`${url}/a2a`, { method: 'POST', agent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(SEND_MESSAGE) } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(SEND_MESSAGE);
    });
  const lane = async () => {
    while (sent < total) {
      sent++;
      await one();
    }
  };
  return Promise.all(Array.from({ length: connections }, lane)).finally(() => agent.destroy());
}

function control(pid, ...flags) {
  const r = spawnSync('callgrind_control', [...flags, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${flags.join(' ')} failed: ${r.stderr || r.stdout}`);
}

async function measure(c, dealerUrl, work, round) {
  const out = path.join(keep ?? work, `callgrind.${c.name}.${round}.out`);
  const child = await startChild(c.script, [dealerUrl, ...(c.file ? [c.file] : [])], {
    name: c.name,
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, '-q', process.execPath],
  });
  const url = child.ready.url;
  await send(url, warmup);
  control(child.pid, '--instr=on');
  await send(url, requests);
  // A dump now (written as OUT.1) holds exactly what the counted requests cost.
  control(child.pid, '--dump');
  await child.stop();
  const text = await readFile(`${out}.1`, 'utf8');
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]);
  if (!keep) await rm(out, { force: true });
  if (!keep) await rm(`${out}.1`, { force: true });
  return total / requests;
}

async function main() {
  const work = workDir('aap-chaos-instructions-');
  const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
  for (const c of cases) {
    if (!c.scenario) continue;
    const generated = /^rules-(\d+)$/.exec(c.scenario);
    if (generated) await writeNonMatchingRules((c.file = path.join(work, `${c.scenario}.yaml`)), Number(generated[1]));
    else c.file = path.isAbsolute(c.scenario) || c.scenario.includes('/') ? path.resolve(c.scenario) : path.join(here, 'scenarios', c.scenario);
  }
  for (const c of cases) c.counts = [];
  for (let r = 1; r <= repeat; r++) {
    for (const c of r % 2 ? cases : [...cases].reverse()) {
      const perRequest = await measure(c, upstream.ready.url, work, r);
      c.counts.push(perRequest);
      process.stderr.write(`round ${r}/${repeat} ${c.name}: ${Math.round(perRequest).toLocaleString('en-US')} instructions per request\n`);
    }
  }
  console.log(`\n${requests} requests counted after ${warmup} of warm-up, ${connections} connections, ${repeat} round(s)`);
  console.log('| case | instructions per request (median) | against the first |');
  console.log('|---|---:|---:|');
  const base = median(cases[0].counts);
  for (const c of cases) console.log(`| ${c.name} | ${Math.round(median(c.counts)).toLocaleString('en-US')} | ${(median(c.counts) / base).toFixed(3)}× |`);
  await stopAllChildren();
  removeWorkDir(work);
}

process.once('SIGINT', () => stopAllChildren().finally(() => process.exit(130)));
main().catch(async (err) => {
  console.error(`bench/instructions.js: ${err.message}`);
  await stopAllChildren();
  process.exit(1);
});
