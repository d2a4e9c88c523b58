/**
 * The RSS cases of the bench alone, with every memory figure at every step: a fresh proxy per
 * case (bench/proxy-child.js with --expose-gc, collected before each reading), read idle, after a
 * warm-up that fills the journal ring, then after each of four equal steps of requests, sent by
 * autocannon at 50 connections with the request of bench/run.js. Prints rss, heapTotal, heapUsed,
 * external and arrayBuffers, and V8's heap spaces with --heap-spaces.
 *
 * Usage: node bench/rss.js [--quick] [--requests N] [--warmup N] [--repeat R] [--case passthrough|error]
 *                          [--heap-spaces] [--build NAME=PATH/TO/proxy-child.js ...]
 * Each --build is another proxy-child (for instance a copy beside another build's dist/); with
 * several, the builds are measured alternately, R times each, and the growth is summarised per
 * build and case as the median and the spread of the repetitions.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopAllChildren } from './children.js';
import { SEND_MESSAGE, HEADERS } from './request.js';

/** As in bench/run.js: the load's connections and the two RSS cases. */
const CONNECTIONS = 50;
const RSS_CASES = [
  { name: 'passthrough', scenario: 'passthrough.yaml' },
  { name: 'error', scenario: 'error-every-request.yaml' },
];

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const values = (name) => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
const number = (name, fallback) => {
  const [v] = values(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`bench/rss.js: ${name} must be a positive whole number, got ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
};

const quick = flag('--quick');
const total = number('--requests', quick ? 20_000 : 200_000);
const warmup = number('--warmup', 12_000);
const repeat = number('--repeat', 1);
const heapSpaces = flag('--heap-spaces');
const caseNames = values('--case');
const cases = RSS_CASES.filter((c) => caseNames.length === 0 || caseNames.includes(c.name));
const builds = values('--build').map((b) => {
  const at = b.indexOf('=');
  return at > 0 ? { name: b.slice(0, at), script: path.resolve(b.slice(at + 1)) } : { name: b, script: path.resolve(b) };
});
if (builds.length === 0) builds.push({ name: 'this build', script: path.join(here, 'proxy-child.js') });

const MB = 1024 * 1024;
const mb = (n) => (n / MB).toFixed(1);
const FIELDS = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];

function formatReading(label, reading) {
  const fields = FIELDS.map((f) => `${f} ${mb(reading.memory[f]).padStart(6)}`).join('  ');
  let line = `  ${label.padEnd(16)} ${fields}${reading.immediate ? `  (rss right after gc ${mb(reading.immediate.rss)}, heapTotal ${mb(reading.immediate.heapTotal)})` : ''}`;
  if (heapSpaces) {
    const spaces = Object.entries(reading.heapSpaces)
      .filter(([, s]) => s.size > 0)
      .map(([name, s]) => `${name.replace(/_space$/, '')} ${mb(s.size)}/${mb(s.used)}`)
      .join(', ');
    line += `\n  ${''.padEnd(16)} spaces (size/used MB): ${spaces}`;
  }
  return line;
}

let nextRunId = 0;
async function send(loader, url, amount) {
  const options = { url: `${url}/a2a`, method: 'POST', headers: HEADERS, body: SEND_MESSAGE, connections: CONNECTIONS, amount };
  const reply = await loader.ask({ type: 'run', id: ++nextRunId, options }, 'result');
  if (reply.error) throw new Error(`autocannon failed: ${reply.error}`);
  const { result } = reply;
  if (result.errors || result.timeouts) throw new Error(`${result.errors} errors and ${result.timeouts} timeouts among ${amount} requests`);
  return result;
}

async function measure(loader, build, c, dealerUrl) {
  const scenario = path.join(here, 'scenarios', c.scenario);
  const proxy = await startChild(build.script, [dealerUrl, scenario], { execArgv: ['--expose-gc'], name: `proxy (${build.name}, ${c.scenario})` });
  const read = () => proxy.ask({ type: 'memory' }, 'memory');
  const readings = [['idle', await read()]];
  await send(loader, proxy.ready.url, warmup);
  readings.push([`warm-up ${warmup}`, await read()]);
  const rates = [];
  for (let i = 1; i <= 4; i++) {
    rates.push((await send(loader, proxy.ready.url, total / 4)).reqPerSec);
    readings.push([`after ${(total / 4) * i}`, await read()]);
  }
  await proxy.stop();
  const warm = readings[1][1].memory;
  const last = readings[readings.length - 1][1].memory;
  const growth = Object.fromEntries(FIELDS.map((f) => [f, last[f] - warm[f]]));
  console.log(`${build.name}, ${c.name} (${c.scenario}), pid ${proxy.pid}:`);
  for (const [label, reading] of readings) console.log(formatReading(label, reading));
  console.log(`  growth           ${FIELDS.map((f) => `${f} ${mb(growth[f]).padStart(6)}`).join('  ')}`);
  console.log(`  req/s per step   ${rates.map((r) => Math.round(r)).join(', ')}\n`);
  return { ...growth, after: last.rss, reqPerSec: median(rates) };
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
  const loader = await startChild('./load-child.js', [], { name: 'load generator' });
  console.log(
    `${total.toLocaleString('en-US')} requests after a warm-up of ${warmup.toLocaleString('en-US')}, ${CONNECTIONS} connections, ${repeat} repetition(s), builds: ${builds.map((b) => b.name).join(', ')}\n`,
  );
  const growths = new Map();
  for (let r = 0; r < repeat; r++) {
    for (const c of cases) {
      // Builds alternate within each repetition, so drift of the machine hits them alike.
      for (const build of r % 2 ? [...builds].reverse() : builds) {
        const key = `${build.name}, ${c.name}`;
        if (!growths.has(key)) growths.set(key, []);
        growths.get(key).push(await measure(loader, build, c, upstream.ready.url));
      }
    }
  }
  console.log('RSS growth (last reading − warm-up reading), MB: median [min … max]');
  for (const [key, list] of growths) {
    const summary = (f) => {
      const v = list.map((g) => g[f]);
      return `${f} ${mb(median(v))} [${mb(Math.min(...v))} … ${mb(Math.max(...v))}]`;
    };
    console.log(
      `  ${key}: ${summary('rss')}; ${summary('heapTotal')}; ${summary('external')}; rss after the last step ${summary('after').replace(/^after /, '')}`,
    );
    console.log(`  ${''.padEnd(key.length)}  req/s (median of the steps) ${list.map((g) => Math.round(g.reqPerSec)).join(', ')}`);
  }
  await stopAllChildren();
}

const interrupted = () => stopAllChildren().finally(() => process.exit(130));
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);

main().catch(async (err) => {
  console.error(`bench/rss.js: ${err.message}`);
  await stopAllChildren();
  process.exit(1);
});
