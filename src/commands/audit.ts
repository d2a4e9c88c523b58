/** `aap-chaos audit verify FILE`: check an audit log's hash chain. */
import type { Argv } from 'yargs';
import { runAuditVerify } from '../staging/audit-verify-command.js';
import type { CommandIo } from './flags.js';

export function auditCommand(io: CommandIo) {
  return {
    command: 'audit <action> <file>',
    describe: "audit verify FILE: check an audit log's hash chain; exit 0 when intact, 1 naming the first removed or edited line",
    builder: (y: Argv) =>
      y.positional('action', { type: 'string', choices: ['verify'] as const, demandOption: true }).positional('file', { type: 'string', demandOption: true }),
    handler: async (argv: Record<string, unknown>) => {
      const result = await runAuditVerify(argv.file as string);
      (result.exitCode === 0 ? io.out : io.err)(result.output);
      process.exitCode = result.exitCode;
    },
  };
}
