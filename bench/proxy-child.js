/**
 * The proxy under test, in its own process so that the load generator does not share its event
 * loop. Usage (from bench/run.js, with fork()): `proxy-child.js <target-url> <scenario.yaml> [journal-file]`.
 * It runs the whole runtime (dist/runtime.js) with the scenario file, as `--scenario FILE` does,
 * reports `{ type: 'ready', url, adminUrl, loadMs }` over IPC (loadMs: from handing the runtime
 * the scenario file to serving: reading, validating, building the engine, listening), answers
 * `{ type: 'memory' }` with its memory (bench/memory-reading.js) and `{ type: 'flush' }` once
 * every journal line is on disk, and closes the proxy and exits on `{ type: 'stop' }`.
 */
import { performance } from 'node:perf_hooks';
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRuntime } from '../dist/runtime.js';
import { memoryReading } from './memory-reading.js';

const [target, scenarioFile, journalFile] = process.argv.slice(2);
if (!target || !scenarioFile) {
  console.error('usage: proxy-child.js <target-url> <scenario.yaml> [journal-file]');
  process.exit(2);
}

// The product as users run it (`--scenario FILE`): the runtime loads the file itself, and the
// journal ring, metrics and the event hub all observe every request.
const loadStart = performance.now();
let started;
try {
  started = await startRuntime({ target, port: 0, host: '127.0.0.1', adminPort: 0, scenario: scenarioFile, seed: 1, journalFile });
} catch (err) {
  console.error(`bench: the proxy did not start with ${scenarioFile}: ${err.message}`);
  process.exit(1);
}
const loadMs = performance.now() - loadStart;

// With AAP_CHAOS_BENCH_PROFILE_DIR (bench/run.js --cpu-prof), the CPU is profiled from now on,
// when the proxy serves, so that start-up (module loading, schema compilation) does not crowd the shares.
const profileDir = process.env.AAP_CHAOS_BENCH_PROFILE_DIR;
const profiler = profileDir ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  profiler.post('Profiler.enable');
  profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  profiler.post('Profiler.start');
}

/** Writes the profile under the name V8's --cpu-prof uses (CPU.<date>.<time>.<pid>.<thread>.<seq>), which run.js reads the pid from. */
function writeProfile() {
  if (!profiler) return Promise.resolve();
  return new Promise((resolve) =>
    profiler.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(profileDir, `CPU.0.0.${process.pid}.0.001.cpuprofile`), JSON.stringify(result.profile));
      resolve();
    }),
  );
}

process.on('message', (msg) => {
  if (msg?.type === 'memory') {
    memoryReading().then((m) => process.send(m));
  } else if (msg?.type === 'flush') {
    started.journal.flush().then(() => process.send({ type: 'flushed', journalDropped: started.journal.dropped }));
  } else if (msg?.type === 'stop') {
    writeProfile()
      .then(() => started.close())
      .finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready', url: started.url, adminUrl: started.adminUrl, loadMs });
