/** The `aap-chaos check` command: run the probe, print the table or JSON, write JUnit, pick the exit code. */
import { writeFile } from 'node:fs/promises';
import { checkToJUnit, formatCheck } from '../check/check-format.js';
import { runCheck, TargetUnreachableError, type CheckOptions } from '../check/run-check.js';

/** 0: every MUST held; 1: a MUST rule failed; 2: the target or a flag could not be used. */
export const CHECK_EXIT = { ok: 0, violated: 1, unusable: 2 } as const;

export interface CheckCommandOptions extends CheckOptions {
  json?: boolean;
  junit?: string;
}

export async function runCheckCommand(opts: CheckCommandOptions): Promise<{ exitCode: number; output: string }> {
  let report;
  try {
    report = await runCheck(opts);
  } catch (err) {
    if (err instanceof TargetUnreachableError || err instanceof TypeError) return { exitCode: CHECK_EXIT.unusable, output: `aap-chaos check: ${err.message}` };
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
