/**
 * `node bench/fleet-redis.js [--seconds N]`: what fleet mode costs, with a local Redis. Quick and
 * bounded (4 cases × N seconds, default 3; Redis, dealer, proxies and the load generator each in
 * their own process, all on 127.0.0.1, all stopped by pid at the end). Needs `npm run build` and
 * Debian's redis-server. Cases:
 *
 *   passthrough-memory  a stateful rule that does not match the request, memory store
 *   passthrough-redis   the same with --state redis://…: no Redis call, so the same numbers
 *   stateful-memory     a stateful rule (`after`) that matches every request, memory store
 *   stateful-redis      the same with Redis: one atomic round trip per request
 *
 * Prints one table and a JSON line with the numbers (req/s, p50, p99 and the stateful cost).
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startChild, stopAllChildren } from './children.js';
import { REDIS_SERVER, startRedis } from './redis-server.js';
import { removeWorkDir, workDir } from './work-dir.js';

const secondsFlag = process.argv.indexOf('--seconds');
const SECONDS = Math.min(30, Math.max(1, Number(secondsFlag > 0 ? process.argv[secondsFlag + 1] : 3) || 3));
const CONNECTIONS = 50;
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const SEND_MESSAGE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: {
    message: { role: 'user', messageId: 'bench-1', parts: [{ kind: 'data', data: { type: 'inventory.search.request', filters: { make: ['Honda'] } } }] },
  },
});

/** A rule keeping state on lead.submit only: inventory.search meets no stateful rule. */
const UNMATCHED = `scenario: fleet-bench-unmatched
rules:
  - id: lead-limit
    match: { skill: lead.submit }
    rate_limit: { limit: 5, window_ms: 10000 }
`;
/** A counter on every search that never lets the rule fire: the reply stays the dealer's. */
const MATCHED = `scenario: fleet-bench-matched
rules:
  - id: counted
    match: { skill: inventory.search }
    when: { after: 1000000000 }
    error: INTERNAL_ERROR
`;

function log(message) {
  process.stderr.write(`[fleet-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

let runId = 0;
async function measure(loader, url) {
  const options = { url: `${url}/a2a`, method: 'POST', headers: HEADERS, body: SEND_MESSAGE, connections: CONNECTIONS, duration: SECONDS };
  // A short warm-up, not measured.
  await loader.ask({ type: 'run', id: ++runId, options: { ...options, duration: 1 } }, 'result');
  const reply = await loader.ask({ type: 'run', id: ++runId, options }, 'result');
  if (reply.error) throw new Error(`load failed: ${reply.error}`);
  return reply.result;
}

async function main() {
  if (!existsSync(REDIS_SERVER)) {
    log(`skipped: needs Debian redis-server (${REDIS_SERVER})`);
    return;
  }
  const dir = workDir('aap-chaos-fleet-bench-');
  let redis;
  try {
    writeFileSync(path.join(dir, 'unmatched.yaml'), UNMATCHED);
    writeFileSync(path.join(dir, 'matched.yaml'), MATCHED);
    redis = await startRedis(dir);
    const upstream = await startChild('./upstream.js', [], { name: 'upstream' });
    const loader = await startChild('./load-child.js', [], { name: 'load generator' });
    const cases = [
      ['passthrough-memory', 'unmatched.yaml', 'memory'],
      ['passthrough-redis', 'unmatched.yaml', redis.url],
      ['stateful-memory', 'matched.yaml', 'memory'],
      ['stateful-redis', 'matched.yaml', redis.url],
    ];
    const results = {};
    for (const [name, file, state] of cases) {
      // proxy-child.js runs the whole runtime, which reads the store from AAP_CHAOS_STATE.
      process.env.AAP_CHAOS_STATE = state;
      const proxy = await startChild('./proxy-child.js', [upstream.ready.url, path.join(dir, file)], { name: `proxy (${name})` });
      log(`${name}: ${SECONDS} s at ${CONNECTIONS} connections`);
      const r = await measure(loader, proxy.ready.url);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx replies and ${r.errors} errors; the case does not measure what it says`);
      results[name] = { reqPerSec: Math.round(r.reqPerSec), p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 };
      await proxy.stop();
    }
    const pct = (a, b) => `${(((results[a].reqPerSec - results[b].reqPerSec) / results[b].reqPerSec) * 100).toFixed(1)}%`;
    const rows = Object.entries(results).map(
      ([name, r]) => `${name.padEnd(20)} ${String(r.reqPerSec).padStart(8)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms`,
    );
    process.stdout.write(`${rows.join('\n')}\n`);
    process.stdout.write(
      `pass-through with Redis vs memory: ${pct('passthrough-redis', 'passthrough-memory')}; stateful rule with Redis vs memory: ${pct('stateful-redis', 'stateful-memory')}\n`,
    );
    process.stdout.write(`${JSON.stringify({ fleetRedis: { seconds: SECONDS, connections: CONNECTIONS, results } })}\n`);
  } finally {
    await stopAllChildren();
    await redis?.stop();
    removeWorkDir(dir);
  }
}

main().catch((err) => {
  log(`failed: ${err.message}`);
  process.exitCode = 1;
});
