/**
 * Runs the buyer command once: in its own process group, with the proxy's addresses in its
 * environment, bounded by a timeout after which the whole group is stopped (SIGTERM, then SIGKILL
 * after a grace period), so a buyer that forks helpers never outlives the exam.
 */
import { spawn } from 'node:child_process';

/** How much of each output stream is kept; the start and the end are what a person reads. */
const KEEP_BYTES = 64 * 1024;
/** Between SIGTERM and SIGKILL for a buyer past its timeout. */
const KILL_GRACE_MS = 2_000;

export interface BuyerRun {
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** The buyer could not be started at all (no such program, not executable). */
export class BuyerStartError extends Error {
  override name = 'BuyerStartError';
}

/** Keeps the last KEEP_BYTES of a stream, noting how much was cut. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > KEEP_BYTES && this.chunks.length > 1) {
      const first = this.chunks.shift()!;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `[… ${this.dropped} earlier bytes not kept]\n${body}` : body;
  }
}

/**
 * The environment the buyer inherits: this process's, without any AAP_CHAOS_ variable (the state
 * store's URL with its password, the admin token, the worker settings), which belong to the
 * operator; the exam then adds the ones the buyer is meant to have.
 */
export function buyerEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('AAP_CHAOS_')));
}

export function runBuyer(command: string[], env: Record<string, string>, timeoutMs: number): Promise<BuyerRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), {
      env: { ...buyerEnvironment(process.env), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the timeout stops everything it started.
      detached: true,
    });
    const out = new Tail();
    const err = new Tail();
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* the group is already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new BuyerStartError(`cannot start the buyer "${command.join(' ')}": ${e.code === 'ENOENT' ? 'no such program' : e.code === 'EACCES' ? 'not executable' : e.message}`));
    });
    let ended: { exitCode: number | null; signal: NodeJS.Signals | null; durationMs: number } | undefined;
    child.once('exit', (exitCode, signal) => {
      ended = { exitCode, signal, durationMs: Math.round(performance.now() - started) };
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      // Helpers the buyer left behind in its group go with it (and release its output pipes).
      signalGroup('SIGKILL');
    });
    child.once('close', (exitCode, signal) => {
      const end = ended ?? { exitCode, signal, durationMs: Math.round(performance.now() - started) };
      resolve({ ...end, timedOut, stdout: out.text(), stderr: err.text() });
    });
  });
}

/** "exit 0", "exit 3", "SIGTERM (timed out)". */
export function describeExit(run: Pick<BuyerRun, 'exitCode' | 'signal' | 'timedOut'>): string {
  const how = run.signal ? run.signal : `exit ${run.exitCode}`;
  return run.timedOut ? `${how} (timed out)` : how;
}

/** The last `lines` lines of a text. */
export function tailLines(text: string, lines: number): string {
  const all = text.replace(/\n$/, '').split('\n');
  return all.slice(-lines).join('\n');
}
