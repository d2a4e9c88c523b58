// scratch: pass-through with the fast path on and off, alternating rounds; CPU per request and req/s.
import { startChild, stopAllChildren } from './children.js';
import { runWrk } from './wrk.js';
import { cpuMsOf } from './process-cpu.js';
import { SEND_MESSAGE, HEADERS } from './request.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 4), seconds = Number(process.argv[3] ?? 8);
const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
const scen = path.join(here, 'scenarios', 'passthrough.yaml');
const on = await startChild('./proxy-child.js', [upstream.ready.url, scen], { name: 'on' });
const off = await startChild('./proxy-child.js', [upstream.ready.url, scen], { name: 'off', env: { AAP_CHAOS_BENCH_FAST_PATH: '0' } });
const floor = await startChild('./floor-child.js', [upstream.ready.url], { name: 'floor' });
const cases = { on, off, floor };
const res = { on: [], off: [], floor: [] };
const opts = (url, d) => ({ url: `${url}/a2a`, method: 'POST', headers: HEADERS, body: SEND_MESSAGE, connections: 50, duration: d });
for (const [n, c] of Object.entries(cases)) await runWrk(opts(c.ready.url, 2));
for (let r = 0; r < rounds; r++)
  for (const [n, c] of Object.entries(cases)) {
    const before = cpuMsOf(c.pid);
    const w = await runWrk(opts(c.ready.url, seconds));
    const cpu = cpuMsOf(c.pid) - before;
    const us = (cpu * 1000) / (w.reqPerSec * seconds);
    res[n].push({ rps: w.reqPerSec, us, p99: w.latencyMs.p99 });
    console.log(`round ${r + 1} ${n}: ${Math.round(w.reqPerSec)} req/s, ${us.toFixed(1)} µs/req, p99 ${w.latencyMs.p99.toFixed(2)} ms`);
  }
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const n of Object.keys(res)) console.log(n, 'median rps', Math.round(med(res[n].map((x) => x.rps))), 'median µs/req', med(res[n].map((x) => x.us)).toFixed(1));
console.log('fast/undici rps', (med(res.on.map((x) => x.rps)) / med(res.off.map((x) => x.rps))).toFixed(3), 'cpu', (med(res.on.map((x) => x.us)) / med(res.off.map((x) => x.us))).toFixed(3));
await stopAllChildren();
process.exit(0);
