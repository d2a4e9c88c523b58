/** The `aap-chaos check` command: run the probe, print the table or JSON, write JUnit, pick the exit code. */
import { writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import type { CheckOptions } from '../check/run-check.js';
import type { CommandIo } from './flags.js';

/** 0: every MUST held; 1: a MUST rule failed; 2: the target or a flag could not be used. */
export const CHECK_EXIT = { ok: 0, violated: 1, unusable: 2 } as const;

export interface CheckCommandOptions extends CheckOptions {
  json?: boolean;
  junit?: string;
}

export function checkCommand(io: CommandIo) {
  return {
    command: 'check',
    describe: 'probe a dealer agent for AAP conformance (under 30 s, a few dozen requests); exit 1 on a MUST violation',
    builder: (y: Argv) =>
      y
        .option('target', { type: 'string', demandOption: true, describe: 'dealer agent base URL (its card is at /.well-known/agent-card.json)' })
        .option('profile', {
          type: 'string',
          choices: ['auto', '1.3', '2.0'] as const,
          default: 'auto' as const,
          describe: 'profile to hold the dealer to; auto reads the card',
        })
        .option('rpc-url', { type: 'string', describe: "JSON-RPC URL to probe (default: the card's JSONRPC interface path on --target)" })
        .option('card-key', {
          type: 'string',
          describe:
            "verify the card's signatures with this key (PEM, JWK or JWK set file) or JWKS URL (loopback or the target's origin); without it a signed card is reported signed, not verified",
        })
        .option('probe-rate-limit', { type: 'boolean', default: false, describe: 'also send repeated calls until the dealer answers RATE_LIMITED' })
        .option('json', { type: 'boolean', default: false, describe: 'print the result, with the wire record, as JSON' })
        .option('junit', { type: 'string', describe: 'also write JUnit XML (one test case per rule) to this file' }),
    handler: async (argv: Record<string, any>) => {
      const result = await runCheckCommand({
        target: argv.target,
        profile: argv.profile,
        rpcUrl: argv.rpcUrl,
        probeRateLimit: argv.probeRateLimit,
        cardKey: argv.cardKey,
        json: argv.json,
        junit: argv.junit,
      });
      io.out(result.output);
      process.exitCode = result.exitCode;
    },
  };
}

export async function runCheckCommand(opts: CheckCommandOptions): Promise<{ exitCode: number; output: string }> {
  // Loaded on use: the probe's modules cost the other commands nothing at start-up.
  const [{ runCheck, TargetUnreachableError }, { checkToJUnit, formatCheck }, { KeyFileError }] = await Promise.all([
    import('../check/run-check.js'),
    import('../check/check-format.js'),
    import('../common/card-key-file.js'),
  ]);
  let report;
  try {
    report = await runCheck(opts);
  } catch (err) {
    if (err instanceof TargetUnreachableError || err instanceof TypeError || err instanceof KeyFileError)
      return { exitCode: CHECK_EXIT.unusable, output: `aap-chaos check: ${err.message}` };
    throw err;
  }
  if (opts.junit !== undefined) {
    try {
      await writeFile(opts.junit, checkToJUnit(report), 'utf8');
    } catch (err) {
      return { exitCode: CHECK_EXIT.unusable, output: `aap-chaos check: --junit: cannot write ${opts.junit}: ${(err as Error).message}` };
    }
  }
  return { exitCode: report.ok ? CHECK_EXIT.ok : CHECK_EXIT.violated, output: opts.json ? JSON.stringify(report, null, 2) : formatCheck(report) };
}
