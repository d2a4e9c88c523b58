/**
 * The load generator, in its own process: for each `{ type: 'run', id, options }` it receives over
 * IPC it runs wrk when installed (timed closed-loop runs) or autocannon (or, for `options.paced`,
 * the evenly paced client of paced.js) and
 * answers `{ type: 'result', id, result }`. Latencies are kept here with
 * sub-millisecond precision (autocannon's own histogram rounds to whole milliseconds, too coarse
 * for targets of 2 and 5 ms).
 */
import autocannon from 'autocannon';
import { summarize } from './stats.js';
import { runPaced } from './paced.js';
import { runWrk, wrkVersion } from './wrk.js';

/** wrk, when installed, drives the timed closed-loop cases; autocannon runs the rest. */
const useWrk = process.env.AAP_CHAOS_BENCH_TOOL !== 'autocannon' && wrkVersion() !== undefined;

function runOnce(options) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    let non2xx = 0;
    const instance = autocannon(options, (err, result) => {
      if (err) return reject(err);
      resolve({
        requests: result.requests.total,
        durationS: result.duration,
        reqPerSec: result.requests.total / result.duration,
        latencyMs: summarize(latencies),
        non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        autocannon: { reqPerSecAvg: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 },
      });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
      else non2xx++;
    });
  });
}

process.on('message', async (msg) => {
  if (msg?.type === 'stop') process.exit(0);
  if (msg?.type !== 'run') return;
  try {
    const { options } = msg;
    const run = options.paced ? runPaced(options.paced) : useWrk && options.duration && !options.amount ? runWrk(options) : runOnce(options);
    process.send({ type: 'result', id: msg.id, result: await run });
  } catch (err) {
    process.send({ type: 'result', id: msg.id, error: String(err?.message ?? err) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
