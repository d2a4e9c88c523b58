/**
 * wrk as the closed-loop load generator, when it is installed: a C program costs the 2-core
 * machine far less CPU than autocannon, so the proxy and the dealer get the cores they would have
 * in production, and the ratios are the ones the targets were set with.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeWorkDir, workDir } from './work-dir.js';

export function wrkVersion() {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return (probe.stdout + probe.stderr).match(/wrk (\S+)/)?.[1] ?? 'unknown';
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk: cannot read latency "${text}"`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** Runs wrk once with the options load-child receives for autocannon, and reads its summary. */
export function runWrk(options) {
  const dir = workDir('aap-chaos-wrk-');
  const script = path.join(dir, 'post.lua');
  const headers = Object.entries(options.headers ?? {}).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(String(v))}`);
  writeFileSync(
    script,
    [`wrk.method = ${JSON.stringify(options.method ?? 'GET')}`, ...headers, `wrk.body = ${JSON.stringify(options.body ?? '')}`].join('\n') + '\n',
  );
  const args = ['-t', '1', '-c', String(options.connections), '-d', `${options.duration}s`, '--latency', '-s', script, options.url];
  const settled = new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`));
      const total = out.match(/(\d+) requests in ([\d.]+)(s|m)/);
      const pct = (p) => toMs(out.match(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm'))[1]);
      const socketErrors = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
      const requests = Number(total[1]);
      const durationS = Number(total[2]) * (total[3] === 'm' ? 60 : 1);
      resolve({
        requests,
        durationS,
        reqPerSec: requests / durationS,
        latencyMs: { count: requests, p50: pct(50), p99: pct(99) },
        non2xx: Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
        errors: socketErrors ? Number(socketErrors[1]) + Number(socketErrors[2]) + Number(socketErrors[3]) : 0,
        timeouts: socketErrors ? Number(socketErrors[4]) : 0,
      });
    });
  });
  // The script's folder goes once wrk is done with it, however it ended: a bench run left hundreds behind.
  return settled.finally(() => removeWorkDir(dir));
}
