/**
 * `aap-chaos replay FILE`: the proxy in front of a dealer that answers from a recording
 * (scenarios, journal and admin API as usual), and `aap-chaos replay --diff FILE --target URL`:
 * the recorded requests sent to a live dealer, its answers compared field by field.
 */
import { writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { checkOption, REPLAY_OPTIONS, RUN_OPTIONS } from '../options.js';
import { REPLAY_TARGET_PREFIX } from '../option-values.js';
import type { RuntimeOptions } from '../runtime.js';
import { checked, declareFlags, flagValues, type CommandIo } from './flags.js';
import { PROXY_FLAGS } from './proxy.js';

export type { CommandIo } from './flags.js';

export const REPLAY_USAGE = `$0 replay FILE [options]
$0 replay --diff FILE --target URL [--json] [--junit FILE]

Serve a recording (made with --record FILE) as the dealer behind the proxy, with any scenario on top;
or, with --diff, send the recorded requests to a live dealer and list the fields that changed.`;

/** The proxy's rows where they mean the same; the listeners of the proxy a replay runs. */
const LISTENER_FLAGS = {
  port: RUN_OPTIONS.port,
  host: RUN_OPTIONS.host,
  adminPort: RUN_OPTIONS.adminPort,
  adminHost: RUN_OPTIONS.adminHost,
  adminToken: RUN_OPTIONS.adminToken,
} as const;

/** The proxy's rows for what runs on top of the replayed dealer. */
const ON_TOP_FLAGS = {
  seed: RUN_OPTIONS.seed,
  profile: { ...RUN_OPTIONS.profile, describe: "envelope profile (default: the scenario's, else read from the recorded card)" },
  journalFile: RUN_OPTIONS.journalFile,
} as const;

const SCENARIO_FLAG = {
  scenario: { ...PROXY_FLAGS.scenario, describe: 'scenario file, or the name of a built-in scenario, applied on top of the replay' },
} as const;

const DIFF_FLAGS = {
  diff: { flag: 'diff', type: 'boolean', default: false, describe: 'compare the recording with the live --target instead of serving it; exit 1 on drift' },
  json: { flag: 'json', type: 'boolean', default: false, describe: '--diff: print the result as JSON' },
  junit: { flag: 'junit', type: 'string', describe: '--diff: also write JUnit XML (one test case per exchange) to this file' },
} as const;

/** The replay command's flags: the proxy's own where they mean the same, the replay's otherwise. */
function replayFlags(y: Argv, io: CommandIo): Argv {
  return declareFlags(
    y.positional('file', { type: 'string', demandOption: true, describe: 'the recording (JSONL, from --record)' }),
    io,
    LISTENER_FLAGS,
    SCENARIO_FLAG,
    ON_TOP_FLAGS,
    REPLAY_OPTIONS,
    DIFF_FLAGS,
  );
}

async function runDiff(argv: Record<string, any>, io: CommandIo): Promise<void> {
  if (argv.target === undefined) io.fail('replay --diff: needs --target URL, the live dealer to compare the recording with');
  const target = checked(io, () => checkOption(REPLAY_OPTIONS.passTarget, 'target', argv.target, 'flag'))!;
  const ignore = checked(io, () => checkOption(REPLAY_OPTIONS.ignore, 'ignore', argv.ignore, 'flag'));
  // Loaded on use, like the runtime below: the other commands never pay for them.
  const [{ RecordingReadError }, { diffRecording }, { driftToJUnit, formatDrift }] = await Promise.all([
    import('../recording/reader.js'),
    import('../replay/drift.js'),
    import('../replay/drift-format.js'),
  ]);
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
  const target = `${REPLAY_TARGET_PREFIX}${argv.file}`;
  const opts: RuntimeOptions = {
    ...flagValues(io, LISTENER_FLAGS, argv),
    target: checked(io, () => checkOption(RUN_OPTIONS.target, 'target', target, 'flag')),
    scenario: argv.scenario,
    ...flagValues(io, ON_TOP_FLAGS, argv),
    replay: flagValues(io, REPLAY_OPTIONS, argv),
    log: io.out,
  };
  const { closeOnSignals, startRuntime } = await import('../runtime.js');
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
    builder: (y: Argv) => replayFlags(y.usage(REPLAY_USAGE), io),
    handler: (argv: Record<string, any>) => (argv.diff ? runDiff(argv, io) : runReplay(argv, io)),
  };
}
