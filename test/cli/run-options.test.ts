// The rows of src/options.ts are the proxy's flags: --help shows each one as its row says, and a
// bad value of each is refused with one line naming the flag, exit 2, before anything listens.
// Each flag's refusal is checked through the proxy command's own module in this process (one
// process per flag would take minutes on a loaded machine), a few through the command line.
import t from 'tap';
import yargs from 'yargs';
import { proxyCommand } from '../../src/commands/proxy.js';
import { MOCK_OPTIONS, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS, type OptionSpec } from '../../src/options.js';
import { parseDurationMs } from '../../src/option-values.js';
import { cli as runCli } from '../helpers/cli-run.js';

/** A value that was not refused starts the proxy: it is stopped there, and the assertions then fail. */
const cli = (args: string[]) => runCli(args, { killWhenOut: 'proxy on ' });

/** The help text with its columns and line wrapping undone: one space between words. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const ROWS: [string, OptionSpec][] = [RUN_OPTIONS, MOCK_OPTIONS, SCENARIO_LIMIT_OPTIONS].flatMap((table) => Object.entries<OptionSpec>(table));

t.test('--help lists every run option with its description and default', async (t) => {
  const help = await cli(['--help']);
  t.equal(help.code, 0);
  const text = flat(help.out);
  for (const [name, spec] of ROWS) {
    t.match(help.out, new RegExp(`^ +(-\\w, )?--${spec.flag} `, 'm'), `${name}: --${spec.flag} is listed`);
    t.ok(text.includes(flat(spec.describe)), `${name}: --${spec.flag} is described as its row says`);
    if (spec.default !== undefined) {
      const shown = typeof spec.default === 'string' ? JSON.stringify(spec.default) : String(spec.default);
      t.ok(text.includes(`[default: ${shown}]`), `${name}: the default ${shown} is shown`);
    }
  }
});

t.test('--help shows these flags as it did before the flags were made from the rows', async (t) => {
  // Copied from `aap-chaos --help` before the change, columns and wrapping included.
  const before = [
    `      --port                 proxy port (0 = any free port)
                                                      [string] [default: "8080"]`,
    `  -s, --scenario             scenario file, or the name of a built-in scenario
                                                                        [string]`,
    `      --profile              envelope profile (default: the scenario's profile:,
                             else auto, which reads the dealer card)
                                        [string] [choices: "auto", "1.3", "2.0"]`,
    `      --upstream-timeout     how long to wait for the dealer's headers and
                             between body chunks (e.g. 30s, 500ms; 0 = no
                             timeout)                  [string] [default: "30s"]`,
    `      --rewrite-card         point the agent card interface URLs at the proxy
                             (--no-rewrite-card to disable)
                                                       [boolean] [default: true]`,
    `      --dealer               several dealers behind one proxy: NAME=URL,
                             repeatable; each is reached under /d/NAME/ (not
                             with --target)                              [array]`,
    `      --mock-profile         profile of the embedded mock dealer (default: the
                             --profile or scenario profile: in force, else 1.3)
                                                [string] [choices: "1.3", "2.0"]`,
    `      --max-scenario-rules   scenarios with more rules than this are refused
                                                     [string] [default: "10000"]`,
  ];
  const help = await cli(['--help']);
  for (const lines of before) t.ok(help.out.includes(`${lines}\n`), lines.trim().split(/\s+/)[0] === '-s,' ? '--scenario' : lines.trim().split(/\s+/)[0]);
});

/** A value the row's check refuses: the first of a few that rarely mean anything. */
function badValue(spec: OptionSpec): string {
  for (const value of ['', 'not a value', '-1'])
    try {
      spec.parse(value);
    } catch {
      return value;
    }
  throw new Error(`--${spec.flag}: no refused value among the candidates; add one`);
}

/** How the command ended: the line it would print, or undefined when it ran on. */
class Ended {
  constructor(
    readonly message: string,
    readonly code: number,
  ) {}
}

/** The proxy command's own module over `args`, in this process; `fail` ends it instead of the process. */
async function proxyRun(args: string[]): Promise<Ended | undefined> {
  const io = {
    out: () => {},
    err: () => {},
    fail: (message: string, code = 2): never => {
      throw new Ended(message, code);
    },
  };
  try {
    // Should a value get through, the missing scenario file still stops the run before anything listens.
    await yargs([...args, '--scenario', 'no/such/scenario.yaml', '--port', '0', '--admin-port', '0'])
      .command(proxyCommand(io))
      .strict()
      .exitProcess(false)
      .fail((msg, e) => {
        throw e ?? new Error(msg);
      })
      .parseAsync();
  } catch (e) {
    if (e instanceof Ended) return e;
    throw e;
  }
  return undefined;
}

t.test('a bad value of every run option: one line naming the flag, exit 2', async (t) => {
  // A switch has no bad value on the command line: the parser reads any value of one as true or false.
  const valued = ROWS.filter(([, spec]) => spec.type === 'string');
  t.ok(valued.length > 30, `${valued.length} flags that take a value`);
  for (const [name, spec] of valued) {
    const value = badValue(spec);
    const ended = await proxyRun([`--${spec.flag}`, value]);
    t.equal(ended?.code, 2, `${name}: --${spec.flag} ${JSON.stringify(value)} exits 2`);
    t.match(ended?.message, new RegExp(`^--${spec.flag}: `), `${name}: the line names --${spec.flag}`);
    t.notMatch(ended?.message, /\n/, `${name}: one line`);
  }
  // The same through the command line itself, for a value after the flag, a choice and a repeatable flag.
  for (const [args, flag] of [
    [['--port', 'abc'], 'port'],
    [['--profile', '3.0', '--port', '0', '--admin-port', '0'], 'profile'],
    [['--allow-host', 'a b', '--port', '0', '--admin-port', '0'], 'allow-host'],
  ] as const) {
    const r = await cli([...args, ...(flag === 'port' ? ['--admin-port', '0'] : [])]);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.err, new RegExp(`^aap-chaos: --${flag}: `));
    t.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
    t.equal(r.out, '', 'nothing started');
  }
});

t.test('a duration past what a timer can wait is refused, not cut to a millisecond', async (t) => {
  // setTimeout fires at once for a delay past 2^31-1 ms: --drain-timeout 99999999999999 once drained nothing.
  const durations = ROWS.filter(([, spec]) => spec.parse === parseDurationMs);
  t.ok(durations.length >= 5, durations.map(([, s]) => s.flag).join(', '));
  for (const [name, spec] of durations) {
    t.equal(spec.parse(String(2 ** 31 - 1)), 2 ** 31 - 1, `${name}: the longest a timer can wait is taken`);
    const ended = await proxyRun([`--${spec.flag}`, '99999999999999']);
    t.equal(ended?.code, 2, `${name}: exit 2`);
    t.match(ended?.message, new RegExp(`^--${spec.flag}: "99999999999999" is longer than 596h, the longest a timer can wait$`));
  }
});
