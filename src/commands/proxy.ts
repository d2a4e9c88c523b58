/**
 * The default command: the proxy, in front of --target, of several dealers, or of the embedded mock
 * dealer. Its flags are the rows of RUN_OPTIONS, MOCK_OPTIONS and SCENARIO_LIMIT_OPTIONS, and the
 * few below that only the command line has.
 */
import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { reloadTlsOn } from '../control/tls-reload.js';
import { startFleetCommand } from '../fleet/fleet-command.js';
import { reportToPrimary, workerIndex } from '../fleet/workers.js';
import { checkOption, MOCK_OPTIONS, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS, wholeNumber } from '../options.js';
import { formatReport } from '../report/format.js';
import { closeOnSignals, startRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import { configureScenarioLimits, formatProblem, resolveScenarioRef } from '../scenario/load.js';
import { watchScenarioFile } from '../scenario/watch.js';
import { checked, declareFlags, flagValues, type CommandIo, type FlagTable } from './flags.js';

/** Flags of the proxy command that are no option of a run: the command itself acts on them. */
export const PROXY_FLAGS = {
  scenario: { flag: 'scenario', alias: 's', type: 'string', describe: 'scenario file, or the name of a built-in scenario' },
  watch: { flag: 'watch', type: 'boolean', default: false, describe: 'reload the scenario file when it changes' },
  report: { flag: 'report', type: 'boolean', default: false, describe: 'print the buyer report when the proxy stops' },
  workers: {
    flag: 'workers',
    type: 'string',
    nargs: 1,
    default: '1',
    describe: 'worker processes behind the one proxy port (more than 1 needs --state redis://… unless the scenario keeps no state)',
    parse: wholeNumber(1, 256, 'a number of workers from 1 to 256'),
  },
  ca: { flag: 'ca', type: 'string', describe: 'PEM file of CA certificates to trust for an https:// target' },
  insecure: { flag: 'insecure', type: 'boolean', default: false, describe: "do not verify the https:// target's certificate" },
} as const satisfies FlagTable;

/** The yargs command; cli.ts registers it with `.command(proxyCommand(io))`. */
export function proxyCommand(io: CommandIo) {
  return {
    command: '$0',
    describe: 'run the proxy (in front of --target, or of the embedded mock dealer)',
    builder: (y: Argv) => declareFlags(y, io, PROXY_FLAGS, RUN_OPTIONS, MOCK_OPTIONS, SCENARIO_LIMIT_OPTIONS),
    handler: (argv: Record<string, any>) => runProxy(argv, io),
  };
}

async function runProxy(argv: Record<string, any>, io: CommandIo): Promise<void> {
  configureScenarioLimits(flagValues(io, SCENARIO_LIMIT_OPTIONS, argv));
  const opts: RuntimeOptions = {
    ...flagValues(io, RUN_OPTIONS, argv),
    scenario: argv.scenario,
    mock: flagValues(io, MOCK_OPTIONS, argv),
    dealerTls: { ca: argv.ca === undefined ? undefined : readCaFile(argv.ca, io), insecure: argv.insecure },
    log: io.out,
  };
  const workers = checked(io, () => checkOption(PROXY_FLAGS.workers, 'workers', argv.workers, 'flag'))!;
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
  const printReport = argv.report as boolean;
  closeOnSignals(
    {
      close: async () => {
        stopWatching?.();
        stopTls();
        const report = printReport ? runtime.report() : undefined;
        await runtime.close();
        if (report) io.out(formatReport(report));
      },
    },
    { log: io.out },
  );
}

/** --ca FILE: read once at start; a missing or unreadable file is a usage error naming the flag. */
function readCaFile(file: string, io: CommandIo): string {
  try {
    const pem = readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) io.fail(`--ca: ${file} holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`);
    return pem;
  } catch (e) {
    io.fail(`--ca: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
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
