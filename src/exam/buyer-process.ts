/**
 * Runs the buyer command once: in its own process group, with the proxy's addresses in its
 * environment, bounded by a timeout after which the whole group is stopped (SIGTERM, then SIGKILL
 * after a grace period), so a buyer that forks helpers never outlives the exam. A helper that left
 * the group (`setsid`) cannot be found, and may hold the buyer's output open: once the buyer has
 * exited, its output is read for a moment more and then no longer waited for. An exam stopped by
 * a signal stops every running buyer's group first (`stopRunningBuyers`).
 */
import { spawn } from 'node:child_process';

/** How much of each output stream is kept; the start and the end are what a person reads. */
const KEEP_BYTES = 64 * 1024;
/** Between SIGTERM and SIGKILL for a buyer past its timeout. */
const KILL_GRACE_MS = 2_000;
/** How long output is still read after the buyer exited, for a helper outside its group holding it open. */
const OUTPUT_GRACE_MS = 1_000;

/** Buyers running now, each with a way to stop its group: what a Ctrl-C on the exam must reach. */
const running = new Map<number, { exited: Promise<void> }>();

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is already gone */
  }
}

/**
 * Passes `signal` on to every running buyer's process group, then SIGKILLs what is left after the
 * grace period (at once with `now`); resolves when every buyer has exited.
 */
export async function stopRunningBuyers(signal: NodeJS.Signals, now = false): Promise<void> {
  const buyers = [...running];
  for (const [pid] of buyers) signalGroup(pid, now ? 'SIGKILL' : signal);
  const kill = setTimeout(() => buyers.forEach(([pid]) => signalGroup(pid, 'SIGKILL')), now ? 0 : KILL_GRACE_MS);
  await Promise.all(buyers.map(([, b]) => b.exited));
  clearTimeout(kill);
}

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
    let outputTimer: NodeJS.Timeout | undefined;
    let markExited = () => {};
    if (child.pid !== undefined) running.set(child.pid, { exited: new Promise<void>((r) => (markExited = r)) });
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid!, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new BuyerStartError(
          `cannot start the buyer "${command.join(' ')}": ${e.code === 'ENOENT' ? 'no such program' : e.code === 'EACCES' ? 'not executable' : e.message}`,
        ),
      );
    });
    let ended: { exitCode: number | null; signal: NodeJS.Signals | null; durationMs: number } | undefined;
    let settled = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, held: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(outputTimer);
      const end = ended ?? { exitCode, signal, durationMs: Math.round(performance.now() - started) };
      const note = held
        ? '\n[aap-chaos: the buyer exited, but its output was held open (by a process outside its group, e.g. started with setsid); reading stopped there]\n'
        : '';
      resolve({ ...end, timedOut, stdout: out.text(), stderr: err.text() + note });
    };
    child.once('exit', (exitCode, signal) => {
      ended = { exitCode, signal, durationMs: Math.round(performance.now() - started) };
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      // Helpers the buyer left behind in its group go with it (and release its output pipes).
      signalGroup(child.pid!, 'SIGKILL');
      running.delete(child.pid!);
      markExited();
      // One that left the group keeps the pipes open: read what comes for a moment, then stop.
      outputTimer = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish(exitCode, signal, true);
      }, OUTPUT_GRACE_MS);
    });
    child.once('close', (exitCode, signal) => finish(exitCode, signal, false));
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
