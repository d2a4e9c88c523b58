/**
 * `--workers N`: N worker processes behind one listening port (node:cluster; the primary hands
 * connections out in turn). Each worker is a replica of the fleet, named after the primary's
 * replica id, and shares state through the same store, so without Redis more than one worker is
 * refused.
 */
import cluster, { type Worker } from 'node:cluster';
import { hostname } from 'node:os';

const WORKER_INDEX_ENV = 'AAP_CHAOS_WORKER';
const REPLICA_BASE_ENV = 'AAP_CHAOS_REPLICA_BASE';
/** A worker that dies is replaced; past this many replacements the primary gives up and stops. */
const MAX_REPLACEMENTS = 3;
/** How long a worker that was asked to stop may take before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Why --workers N cannot run, or undefined when it can: more than one worker needs a shared store.
 * An admin call reaches one worker, so without Redis a lever pull, a scenario swap, dry run or a
 * rule switch would change that worker alone while the others went on injecting: "one stop" would
 * stop one process in N. With Redis every worker follows the fleet's lever and scenario.
 */
export function workersRefusal(workers: number, stateUrl: string | undefined): string | undefined {
  if (workers <= 1 || stateUrl !== undefined) return undefined;
  return `--workers ${workers} needs --state redis://host:port/db (or AAP_CHAOS_STATE): without it an admin call (the lever, a scenario, dry run, a rule switch) would reach one worker of ${workers}; for one machine, start redis-server --port 6390 --save '' and add --state redis://127.0.0.1:6390/0, or use --workers 1`;
}

/** In a worker: its 1-based index, else undefined. */
export function workerIndex(): number | undefined {
  return cluster.isWorker ? Number(process.env[WORKER_INDEX_ENV]) : undefined;
}

/** In a worker: its replica id (the primary's id, or host-pid of the primary, with -wN). */
export function workerReplicaId(): string | undefined {
  return cluster.isWorker ? `${process.env[REPLICA_BASE_ENV]}-w${process.env[WORKER_INDEX_ENV]}` : undefined;
}

/** In a worker: tells the primary it listens. */
export function reportToPrimary(message: { ready: true; url: string; adminUrl: string }): void {
  if (cluster.isWorker) process.send?.(message);
}

/**
 * In the primary: forks the workers, prints one line when all listen, stops them on SIGINT or
 * SIGTERM and exits with 0; exits 1 when a worker cannot start (it has said why on stderr).
 */
export function runPrimary(count: number, replicaBase: string | undefined, log: (line: string) => void): void {
  const base = replicaBase ?? `${hostname()}-${process.pid}`;
  let ready = 0;
  let replacements = 0;
  let stopping = false;
  const indexOf = new Map<Worker, number>();
  const listening = new Set<Worker>();
  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_ENV]: String(index), [REPLICA_BASE_ENV]: base });
    indexOf.set(worker, index);
    worker.on('message', (m: { ready?: true; url?: string; adminUrl?: string }) => {
      if (!m.ready) return;
      listening.add(worker);
      if (++ready === count) log(`aap-chaos: ${count} workers (${base}-w1…w${count}) share the proxy on ${m.url} and the admin API on ${m.adminUrl}`);
    });
  };
  const stopAll = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
    }, STOP_GRACE_MS).unref();
  };
  cluster.on('exit', (worker, code, signal) => {
    const index = indexOf.get(worker)!;
    indexOf.delete(worker);
    if (stopping) {
      if (indexOf.size === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (!listening.delete(worker)) {
      // It never listened: a bad flag, an unreachable Redis, a taken port. A replacement would fail alike.
      process.exitCode = 1;
      stopAll();
      if (indexOf.size === 0) process.exit(1);
      return;
    }
    if (replacements >= MAX_REPLACEMENTS) {
      log(`aap-chaos: worker ${index} exited (${signal ?? code}); too many replacements, stopping`);
      stopAll();
      process.exitCode = 1;
      return;
    }
    replacements++;
    log(`aap-chaos: worker ${index} exited (${signal ?? code}); starting a replacement`);
    fork(index);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      log(`${signal}: stopping ${count} workers`);
      stopAll();
    });
  }
  // SIGHUP reloads TLS certificates: every worker serves them, so every worker is told.
  process.on('SIGHUP', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP');
  });
  for (let i = 1; i <= count; i++) fork(i);
}
