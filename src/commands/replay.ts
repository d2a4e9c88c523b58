/**
 * `aap-chaos replay FILE`: the proxy in front of a dealer that answers from a recording
 * (scenarios, journal and admin API as usual), and `aap-chaos replay --diff FILE --target URL`:
 * the recorded requests sent to a live dealer, its answers compared field by field.
 */
import { writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { checkOption, checkOptions, OptionError, REPLAY_OPTIONS, REPLAY_TARGET_PREFIX } from '../options.js';
import { closeOnSignals, startRuntime, type RuntimeOptions } from '../runtime.js';
import { RecordingReadError } from '../recording/reader.js';
import { diffRecording } from '../replay/drift.js';
import { driftToJUnit, formatDrift } from '../replay/drift-format.js';

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  fail: (message: string, code?: number) => never;
}

export const REPLAY_USAGE = `$0 replay FILE [options]
$0 replay --diff FILE --target URL [--json] [--junit FILE]

Serve a recording (made with --record FILE) as the dealer behind the proxy, with any scenario on top;
or, with --diff, send the recorded requests to a live dealer and list the fields that changed.`;

/** The replay command's flags: the proxy's own where they mean the same, the replay's otherwise. */
function replayFlags(y: Argv): Argv {
  return y
    .positional('file', { type: 'string', demandOption: true, describe: 'the recording (JSONL, from --record)' })
    .option('port', { type: 'string', nargs: 1, default: '8080', describe: 'proxy port (0 = any free port)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'proxy address' })
    .option('admin-port', { type: 'string', nargs: 1, default: '8081', describe: 'admin API port (0 = any free port)' })
    .option('admin-host', { type: 'string', default: '127.0.0.1', describe: 'admin API address (any non-loopback address needs --admin-token)' })
    .option('admin-token', { type: 'string', describe: 'bearer token for the admin API (or AAP_CHAOS_ADMIN_TOKEN)' })
    .option('scenario', { alias: 's', type: 'string', describe: 'scenario file, or the name of a built-in scenario, applied on top of the replay' })
    .option('seed', { type: 'string', nargs: 1, describe: 'seed for every random choice, 0-4294967295 (overrides the scenario)' })
    .option('profile', {
      type: 'string',
      choices: ['auto', '1.3', '2.0'] as const,
      describe: "envelope profile (default: the scenario's, else read from the recorded card)",
    })
    .option('journal', { type: 'string', describe: 'append one JSON line per request to this file' })
    .option('speed', { type: 'string', nargs: 1, default: '1', describe: 'divide the recorded gaps between SSE events by this (2 = twice as fast)' })
    .option('ignore', {
      type: 'string',
      array: true,
      describe: 'a JSON Pointer that matching ignores (into the DataPart data), or that --diff ignores (into each reply); repeatable',
    })
    .option('on-miss', {
      type: 'string',
      choices: ['error', 'pass', 'nearest'] as const,
      default: 'error' as const,
      describe: 'a request with no recorded match: an error naming the nearest recorded one, pass to --target (and record), or the nearest reply',
    })
    .option('target', { type: 'string', describe: 'the live dealer: where --on-miss pass forwards, and what --diff compares against' })
    .option('diff', { type: 'boolean', default: false, describe: 'compare the recording with the live --target instead of serving it; exit 1 on drift' })
    .option('json', { type: 'boolean', default: false, describe: '--diff: print the result as JSON' })
    .option('junit', { type: 'string', describe: '--diff: also write JUnit XML (one test case per exchange) to this file' });
}

/** Reads one flag through the shared option table; a bad value ends the run with one line. */
function flag<T>(io: CommandIo, read: () => unknown): T {
  try {
    return read() as T;
  } catch (e) {
    if (e instanceof OptionError) io.fail(e.message);
    throw e;
  }
}

async function runDiff(argv: Record<string, any>, io: CommandIo): Promise<void> {
  if (argv.target === undefined) io.fail('replay --diff: needs --target URL, the live dealer to compare the recording with');
  const target = flag<string>(io, () => checkOption(REPLAY_OPTIONS.passTarget, 'target', argv.target, 'flag'));
  const ignore = flag<string[] | undefined>(io, () => checkOption(REPLAY_OPTIONS.ignore, 'ignore', argv.ignore, 'flag'));
  let result;
  try {
    result = await diffRecording({ file: argv.file, target, ignore });
  } catch (e) {
    if (e instanceof RecordingReadError) io.fail(e.message);
    throw e;
  }
  io.out(argv.json ? JSON.stringify(result, null, 2) : formatDrift(result));
  if (argv.junit) {
    try {
      await writeFile(argv.junit, driftToJUnit(result));
    } catch (e) {
      io.fail(`--junit: cannot write ${argv.junit} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  process.exitCode = result.drift ? 1 : 0;
}

async function runReplay(argv: Record<string, any>, io: CommandIo): Promise<void> {
  const opts: RuntimeOptions = flag(io, () =>
    checkOptions(
      {
        target: `${REPLAY_TARGET_PREFIX}${argv.file}`,
        port: argv.port,
        host: argv.host,
        adminPort: argv.adminPort,
        adminHost: argv.adminHost,
        adminToken: argv.adminToken,
        scenario: argv.scenario,
        seed: argv.seed,
        profile: argv.profile,
        journalFile: argv.journal,
        replay: { speed: argv.speed, ignore: argv.ignore, onMiss: argv.onMiss, passTarget: argv.target },
        log: io.out,
      },
      'flag',
    ),
  );
  let runtime;
  try {
    runtime = await startRuntime(opts);
  } catch (e) {
    io.fail((e as Error).message);
  }
  closeOnSignals(runtime, { log: io.out });
}

/** The yargs command; cli.ts registers it with `.command(replayCommand(io))`. */
export function replayCommand(io: CommandIo) {
  return {
    command: 'replay <file>',
    describe: 'serve a recording as the dealer behind the proxy (scenarios apply on top), or --diff it against a live dealer',
    builder: (y: Argv) => replayFlags(y.usage(REPLAY_USAGE)),
    handler: (argv: Record<string, any>) => (argv.diff ? runDiff(argv, io) : runReplay(argv, io)),
  };
}
