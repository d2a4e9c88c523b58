/**
 * The default command: the proxy, in front of --target, of several dealers, or of the embedded mock
 * dealer. Its flags are the rows of RUN_OPTIONS, MOCK_OPTIONS and SCENARIO_LIMIT_OPTIONS, and the
 * few below that only the command line has.
 */
import type { Argv } from 'yargs';
import { checkOption, MOCK_OPTIONS, RUN_OPTIONS, SCENARIO_LIMIT_OPTIONS } from '../options.js';
import { wholeNumber } from '../option-values.js';
import { checked, declareFlags, flagValues, type CommandIo, type FlagTable } from './flags.js';
import type { ProxyFlagValues } from './proxy-options.js';

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
    describe: 'worker processes behind the one proxy port (more than 1 needs --state redis://…, so that one lever and one scenario reach every worker)',
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
    handler: async (argv: Record<string, any>) => {
      // Every flag is checked before anything loads: a bad value costs one line and no start-up.
      const flags: ProxyFlagValues = {
        limits: flagValues(io, SCENARIO_LIMIT_OPTIONS, argv),
        run: flagValues(io, RUN_OPTIONS, argv),
        mock: flagValues(io, MOCK_OPTIONS, argv),
        workers: checked(io, () => checkOption(PROXY_FLAGS.workers, 'workers', argv.workers, 'flag'))!,
      };
      // Loaded on use: the runtime's modules cost the other commands (and --help) nothing.
      const { runProxy } = await import('./run-proxy.js');
      await runProxy(argv, flags, io);
    },
  };
}
