/** `aap-chaos report JOURNAL…`: grade a buyer from journal files; exit 1 when a check fails. */
import type { Argv } from 'yargs';
import { DEFAULT_THRESHOLDS, THRESHOLD_NAMES } from '../report/thresholds.js';
import type { CommandIo } from './flags.js';

/** One flag per report threshold, named after it: retry_after_tolerance_ms → --retry-after-tolerance-ms. */
const flagName = (threshold: string) => threshold.replace(/_/g, '-');
function thresholdFlags(): Record<string, { type: 'number'; describe: string }> {
  return Object.fromEntries(
    THRESHOLD_NAMES.map((n) => [flagName(n), { type: 'number' as const, describe: `report threshold (default ${DEFAULT_THRESHOLDS[n]})` }]),
  );
}

export function reportCommand(io: CommandIo) {
  return {
    command: 'report <journals..>',
    describe: 'grade a buyer from a journal file (or the journals of several replicas, merged by time); exit 1 when a check fails',
    builder: (y: Argv) =>
      y
        .positional('journals', { type: 'string', array: true, demandOption: true })
        .option('json', { type: 'boolean', default: false })
        .option('junit', { type: 'string', describe: 'also write JUnit XML to this file' })
        .option('profile', { type: 'string', choices: ['1.3', '2.0'] as const, describe: 'the profile the run used (the version check needs 2.0)' })
        .option('extension-uri', { type: 'string', describe: 'the AAP URI the activation check expects (default: any AAP URI)' })
        .options(thresholdFlags()),
    handler: async (argv: Record<string, any>) => {
      const thresholds = Object.fromEntries(THRESHOLD_NAMES.filter((n) => argv[flagName(n)] !== undefined).map((n) => [n, argv[flagName(n)]]));
      // Loaded on use: reading journals costs the other commands nothing.
      const { runReportCommand } = await import('../report/command.js');
      const result = await runReportCommand(argv.journals as string[], {
        json: argv.json,
        junit: argv.junit,
        profile: argv.profile,
        extensionUri: argv.extensionUri,
        thresholds,
      });
      io.out(result.output);
      process.exitCode = result.exitCode;
    },
  };
}
