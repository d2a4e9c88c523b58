/**
 * An open-loop client that sends requests evenly spaced at a fixed rate (one every 5 ms at
 * 200 req/s). Used instead of autocannon's `overallRate` for the fixed-rate cases: autocannon
 * gives each connection a per-second budget, so all requests of a second leave at once at the
 * second's start and the slowest of them measure how fast a burst of 200 drains, not how exact
 * an injected delay is.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { summarize } from './stats.js';

function sendOne(agent, target, body, headers) {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = http.request(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ok: res.statusCode >= 200 && res.statusCode < 300, ms: performance.now() - start }));
      res.on('error', () => resolve({ ok: false }));
    });
    req.on('error', () => resolve({ ok: false }));
    req.end(body);
  });
}

/** Sends `rate` requests per second for `seconds`, on at most `connections` keep-alive sockets. */
export async function runPaced({ url, body, headers, rate, seconds, connections }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const pending = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    // Wait for this request's slot on the absolute schedule, so timer lateness does not accumulate.
    const wait = started + i * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(sendOne(agent, url, body, headers));
  }
  const outcomes = await Promise.all(pending);
  const durationS = (performance.now() - started) / 1000;
  agent.destroy();
  const ok = outcomes.filter((o) => o.ok);
  return {
    requests: outcomes.length,
    durationS,
    reqPerSec: outcomes.length / durationS,
    latencyMs: summarize(ok.map((o) => o.ms)),
    non2xx: outcomes.length - ok.length,
    errors: 0,
    timeouts: 0,
  };
}
