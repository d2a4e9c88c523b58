// The built CLI in a child process, run to its end: exit code and everything it printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));

export interface CliOptions {
  /** Stops the process (SIGKILL) once stdout holds this text: a run that should have been refused started serving. */
  killWhenOut?: string;
}

export function cli(args: string[], opts: CliOptions = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (opts.killWhenOut !== undefined && out.includes(opts.killWhenOut)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (c) => (err += c));
    // 'close', not 'exit': every byte the process wrote has been read by then.
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
