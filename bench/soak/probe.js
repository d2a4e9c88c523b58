/**
 * Loaded into the proxy under soak with `node --import`: answers the soak's `sample` message over
 * IPC with what the process holds (RSS, heap, open file descriptors) and how late its event loop
 * ran since the last sample (p99 and max), plus the p99 since `reset` (the end of the warm-up).
 * It adds no work of its own between samples but the delay histogram's 10 ms timer.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const window = monitorEventLoopDelay({ resolution: 10 });
const run = monitorEventLoopDelay({ resolution: 10 });
window.enable();
run.enable();
const ms = (ns) => Math.round((ns / 1e6) * 10) / 10;

process.on('message', (message) => {
  if (message?.type === 'reset') {
    run.reset();
    return;
  }
  if (message?.type !== 'sample') return;
  // A full collection first (the soak starts the proxy with --expose-gc): what is read is what the
  // process keeps, not what the last dashboard poll left for the collector. The "last-resort"
  // kind also hands back the heap V8 holds in reserve: Node 22 and 24 grow the young generation
  // under steady allocation and keep it after an ordinary collection (heap total 93 → 158 MB with
  // 26 MB in use over a 2-minute soak), which read as RSS growth without a byte kept (Node 20
  // ignores the option). A leak survives it. Its pause falls in the event-loop histogram like any
  // other, once per sample.
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const memory = process.memoryUsage();
  process.send({
    type: 'sample',
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    fds: readdirSync('/proc/self/fd').length,
    loopP99Ms: ms(window.percentile(99)),
    loopMaxMs: ms(window.max),
    runLoopP99Ms: ms(run.percentile(99)),
  });
  window.reset();
});
// The channel must not keep the proxy alive once it has been told to stop.
process.channel?.unref();
