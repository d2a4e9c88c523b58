/** `aap-chaos audit verify PATH…`: check audit logs' hash chains, across rotated files, held to their heads. */
import type { Argv } from 'yargs';
import { runAuditVerify } from '../staging/audit-verify-command.js';
import type { CommandIo } from './flags.js';

export function auditCommand(io: CommandIo) {
  return {
    command: 'audit <action> <files..>',
    describe:
      "audit verify FILE [FILE.1 …] | DIR: check audit logs' hash chains across rotated files, the tail against FILE.head; exit 0 when intact, 1 naming each removed, edited or added line, missing file or cut tail",
    builder: (y: Argv) =>
      y
        .positional('action', { type: 'string', choices: ['verify'] as const, demandOption: true })
        .positional('files', { type: 'string', array: true, demandOption: true, describe: 'audit files (FILE, FILE.N, FILE.N.gz) or directories holding them' })
        .option('head', { type: 'string', describe: 'the head file of the chain (default: FILE.head beside FILE); --no-head checks the links alone' }),
    handler: async (argv: Record<string, unknown>) => {
      const head = argv.head;
      const result = await runAuditVerify(argv.files as string[], { head: typeof head === 'string' ? head : undefined, noHead: head === false });
      (result.exitCode === 0 ? io.out : io.err)(result.output);
      process.exitCode = result.exitCode;
    },
  };
}
