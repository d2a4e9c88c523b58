/**
 * What the proxy command does once its flags are read: start the runtime (or a fleet of workers),
 * say how to reach it, watch files when asked, and close in order on a signal. Loaded by
 * commands/proxy.ts only when the proxy runs.
 */
import { reloadTlsOn } from '../control/tls-reload.js';
import { startFleetCommand } from '../fleet/fleet-command.js';
import { reportToPrimary, workerIndex } from '../fleet/workers.js';
import { formatReport } from '../report/format.js';
import { closeOnSignals, startRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import { configureScenarioLimits, formatProblem, resolveScenarioRef } from '../scenario/load.js';
import { watchScenarioFile } from '../scenario/watch.js';
import type { CommandIo } from './flags.js';
import { proxyRuntimeOptions, type ProxyFlagValues } from './proxy-options.js';

export async function runProxy(argv: Record<string, any>, { limits, run, mock, workers }: ProxyFlagValues, io: CommandIo): Promise<void> {
  configureScenarioLimits(limits);
  const opts = proxyRuntimeOptions(argv, { run, mock }, io, io.out);
  // --workers N: the primary forks and supervises; each worker goes on below as one replica.
  if ((await startFleetCommand(workers, opts, io)) === 'primary') return;
  // --watch with TLS files and no scenario file watches the certificates alone.
  const tlsFiles = [argv.tlsCert, argv.tlsKey, argv.adminTlsCert, argv.adminTlsKey].filter((f): f is string => typeof f === 'string');
  const watchedFile = argv.watch && !(tlsFiles.length > 0 && argv.scenario === undefined) ? await scenarioFileToWatch(argv.scenario, io) : undefined;
  let runtime: Runtime;
  try {
    runtime = await startRuntime(opts);
  } catch (e) {
    io.fail((e as Error).message);
  }
  reportToPrimary({ ready: true, url: runtime.url, adminUrl: runtime.adminUrl });
  printHowToReach(runtime, opts, io);
  const stopWatching = watchedFile === undefined ? undefined : watchScenario(runtime, watchedFile, io);
  const stopTls = reloadTlsOn(runtime, argv.watch ? tlsFiles : [], io);
  const stopReopening = reopenFilesOnHup(runtime, opts, io);
  const printReport = argv.report as boolean;
  closeOnSignals(
    {
      close: async () => {
        stopWatching?.();
        stopTls();
        stopReopening();
        const report = printReport ? runtime.report() : undefined;
        await runtime.close();
        if (report) io.out(formatReport(report));
      },
    },
    { log: io.out },
  );
}

/** SIGHUP opens the journal and audit files again: logrotate's `create` moves them, then sends a HUP. */
function reopenFilesOnHup(runtime: Runtime, opts: RuntimeOptions, { out, err }: CommandIo): () => void {
  const files = [opts.journalFile, opts.auditFile].filter((f) => f !== undefined);
  if (files.length === 0) return () => {};
  const onHup = () =>
    runtime.reopenFiles().then(
      () => out(`SIGHUP: reopened ${files.join(' and ')}`),
      (e: Error) => err(`SIGHUP: ${e.message}`),
    );
  process.on('SIGHUP', onHup);
  return () => process.off('SIGHUP', onHup);
}

/** Checked before anything starts: a watch that could never fire is a mistake, not a no-op. */
async function scenarioFileToWatch(scenario: unknown, io: CommandIo): Promise<string> {
  const ref = typeof scenario === 'string' ? await resolveScenarioRef(scenario) : undefined;
  if (!ref?.ok || ref.builtin)
    io.fail(
      `--watch: needs --scenario FILE to watch, got ${typeof scenario === 'string' ? `"${scenario}" (${ref?.ok ? 'a built-in scenario' : 'not a file'})` : 'no --scenario'}`,
    );
  return ref.path;
}

/** Each dealer's card, or for the embedded mock dealer a request to paste. */
function printHowToReach(runtime: Runtime, opts: RuntimeOptions, { out }: CommandIo): void {
  if (runtime.dealerUrls) for (const [name, base] of Object.entries(runtime.dealerUrls)) out(`dealer ${name}: card at ${base}/.well-known/agent-card.json`);
  else if (!opts.target && (workerIndex() ?? 1) === 1) {
    out('');
    out('Try it (inventory.search through the proxy):');
    out(
      `  curl -s ${runtime.url}/a2a -H 'content-type: application/json' -H 'A2A-Version: 1.0' ` +
        `-d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"data":{"type":"inventory.search.request","filters":{"make":["Honda"]},"pagination":{"limit":2}},"mediaType":"application/vnd.autoagent.inventory-search-request+json"}]}}}'`,
    );
  }
}

/** --watch: a valid change is swapped in, a bad one reported while the running scenario stays. */
function watchScenario(runtime: Runtime, file: string, { out, err }: CommandIo): () => void {
  const { close } = watchScenarioFile(
    file,
    (scenario) => {
      runtime.use(scenario).then(
        (engine) => out(`reloaded ${file}: scenario ${engine.name} (${engine.rules().length} rules)`),
        (e) => err(`reload failed: ${(e as Error).message}`),
      );
    },
    (problems) => {
      err(`${file} was not loaded; the running scenario stays:`);
      for (const p of problems) err(`  ${formatProblem(p)}`);
    },
  );
  // Said once the watch is in place: a change made after this line is always seen.
  out(`watching ${file} for changes`);
  return close;
}
