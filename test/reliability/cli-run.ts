// Runs the built CLI to completion: exit code, stdout and stderr.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));

export function runCli(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
      const code = error ? ((error as { code?: number }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, out, err, ms: Date.now() - started });
    });
  });
}
