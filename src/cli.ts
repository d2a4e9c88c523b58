/**
 * The command line: a thin shell over the library. Every command (one module each under
 * src/commands/) turns its flags into options, calls one function, and turns failures into a
 * clear line and an exit code — never a stack trace.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { MOCK_OPTIONS, REPLAY_OPTIONS, RUN_OPTIONS } from './options.js';
import { VERSION } from './runtime/version.js';
import { auditCommand } from './commands/audit.js';
import { checkCommand } from './commands/check.js';
import { ctlCommand } from './commands/ctl.js';
import type { CommandIo } from './commands/flags.js';
import { mcpCommand } from './commands/mcp.js';
import { mockCommand } from './commands/mock.js';
import { proxyCommand } from './commands/proxy.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { scenariosCommand } from './commands/scenarios.js';
import { validateCommand } from './commands/validate.js';

/** Set once stdout is closed (`aap-chaos … | head -1`): further output is dropped, quietly. */
let stdoutClosed = false;
const out = (line: string) => {
  if (!stdoutClosed) process.stdout.write(line + '\n');
};
const err = (line: string) => process.stderr.write(line + '\n');
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (stream === process.stdout) stdoutClosed = true;
  });
}

/** Exit with a message, the way every user-facing failure ends. */
function fail(message: string, code = 2): never {
  err(`aap-chaos: ${message}`);
  process.exit(code);
}

const io: CommandIo = { out, err, fail };

/** The commands after the default one (the proxy), in the order --help lists them. */
const COMMANDS = [
  mockCommand(io),
  validateCommand(io),
  // exam has its own parser (see main); this entry is its line in --help.
  {
    command: 'exam',
    describe: 'grade a buyer command under a battery of scenarios: exam [options] -- <buyer command…> (see exam --help)',
    handler: () => {},
  },
  scenariosCommand(io),
  reportCommand(io),
  auditCommand(io),
  checkCommand(io),
  replayCommand(io),
  ctlCommand(io),
  mcpCommand(io),
];

async function main(): Promise<void> {
  const args = hideBin(process.argv);
  // exam has its own parser: everything after "--" is the buyer's command, untouched.
  if (args[0] === 'exam') {
    const { runExamCommand } = await import('./commands/exam.js');
    process.exitCode = await runExamCommand(args.slice(1), { out, err });
    return;
  }
  let cli = yargs(args)
    .scriptName('aap-chaos')
    .usage('$0 [--target URL] [options]\n\nA fault-injection reverse proxy for AAP dealer agents. Without --target it serves an embedded mock dealer.')
    .command(proxyCommand(io));
  for (const command of COMMANDS) cli = cli.command(command);
  await cli
    .strict()
    // A flag given twice takes its last value (as in most tools), never an array; the parser's own
    // setting for that would also keep only the last of several positional files.
    .middleware(lastValueOfRepeatedFlags, true)
    .fail((msg, e) => {
      if (e) fail(e.message);
      err(`${msg}\n\nRun "${helpCommand()}" for usage.`);
      process.exit(2);
    })
    .help()
    .version(VERSION)
    .parseAsync();
}

/** Positionals that are lists, and every flag a row declares repeatable; any other repeated flag keeps its last value. */
const LIST_ARGUMENTS = new Set([
  '_',
  'files',
  'journals',
  'args',
  ...[RUN_OPTIONS, MOCK_OPTIONS, REPLAY_OPTIONS].flatMap((table) =>
    Object.values(table).flatMap((spec) => ('array' in spec ? [spec.flag, spec.flag.replace(/-(.)/g, (_: string, c: string) => c.toUpperCase())] : [])),
  ),
]);
function lastValueOfRepeatedFlags(argv: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(argv)) if (Array.isArray(value) && !LIST_ARGUMENTS.has(key)) argv[key] = value.at(-1);
}

/** The --help line for the command being run: `aap-chaos mock --help` for a bad mock flag. */
function helpCommand(): string {
  const first = hideBin(process.argv).find((a) => !a.startsWith('-'));
  const names = COMMANDS.map((c) => c.command.split(' ')[0]);
  return first !== undefined && names.includes(first) ? `aap-chaos ${first} --help` : 'aap-chaos --help';
}

main().catch((e) => fail((e as Error)?.message ?? String(e)));
