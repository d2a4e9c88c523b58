/**
 * The proxy under test, in its own process so that the load generator does not share its event
 * loop. Usage (from bench/run.js, with fork()): `proxy-child.js <target-url> <scenario.yaml>`.
 * It loads the scenario with the project's own loader and runs the whole runtime (dist/runtime.js),
 * reports `{ type: 'ready', url }` over IPC, answers `{ type: 'memory' }` with its
 * process.memoryUsage(), and closes the proxy and exits on `{ type: 'stop' }`.
 */
import { startRuntime } from '../dist/runtime.js';
import { loadScenarioFile, formatProblem } from '../dist/scenario/load.js';

const [target, scenarioFile] = process.argv.slice(2);
if (!target || !scenarioFile) {
  console.error('usage: proxy-child.js <target-url> <scenario.yaml>');
  process.exit(2);
}

const loaded = await loadScenarioFile(scenarioFile);
if (!loaded.ok) {
  console.error(`bench: scenario ${scenarioFile} is not valid:\n${loaded.problems.map(formatProblem).join('\n')}`);
  process.exit(1);
}
// The product as users run it: the journal ring, metrics and the event hub all observe every request.
const started = await startRuntime({ target, port: 0, host: '127.0.0.1', adminPort: 0, scenario: loaded.scenario, seed: 1 });

process.on('message', (msg) => {
  if (msg?.type === 'memory') {
    // A collection first (when --expose-gc is on) so that a reading shows what is kept, not garbage not yet swept.
    globalThis.gc?.();
    process.send({ type: 'memory', memory: process.memoryUsage() });
  } else if (msg?.type === 'stop') {
    // process.exit() (not a natural end) so that --cpu-prof writes its profile at once.
    started.close().finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready', url: started.url });
