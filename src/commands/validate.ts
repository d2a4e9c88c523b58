/** `aap-chaos validate FILE…`: check scenario files; exit 0 when all are valid, 1 otherwise. */
import type { Argv } from 'yargs';
import { SCENARIO_LIMIT_OPTIONS } from '../options.js';
import { configureScenarioLimits, validateFiles } from '../scenario/load.js';
import { declareFlags, flagValues, type CommandIo } from './flags.js';

export function validateCommand(io: CommandIo) {
  return {
    command: 'validate <files..>',
    describe: 'check scenario files; exit 0 when all are valid, 1 otherwise',
    builder: (y: Argv) => declareFlags(y.positional('files', { type: 'string', array: true, demandOption: true }), io, SCENARIO_LIMIT_OPTIONS),
    handler: async (argv: Record<string, unknown>) => {
      configureScenarioLimits(flagValues(io, SCENARIO_LIMIT_OPTIONS, argv));
      const result = await validateFiles(argv.files as string[]);
      io.out(result.output);
      process.exitCode = result.ok ? 0 : 1;
    },
  };
}
