/**
 * The CLI side of --workers: in the primary, check that the workers can share what they must,
 * then fork and supervise them; in a worker, name the replica and let only the first one talk.
 */
import cluster from 'node:cluster';
import { extname } from 'node:path';
import { formatProblem } from '../scenario/load.js';
import { loadScenarioInput, ScenarioRejectedError } from '../scenario/input.js';
import type { RuntimeOptions } from '../runtime.js';
import { stateUrlOf } from '../state/fleet.js';
import { runPrimary, workerIndex, workerReplicaId, workersRefusal } from './workers.js';

/** journal.jsonl → journal.w2.jsonl (the worker number before the extension). */
export function workerJournalFile(file: string, index: number): string {
  const ext = extname(file);
  return `${ext ? file.slice(0, -ext.length) : file}.w${index}${ext}`;
}

export async function startFleetCommand(
  workers: number,
  opts: RuntimeOptions,
  io: { out: (line: string) => void; fail: (message: string) => never },
): Promise<'primary' | 'replica'> {
  if (cluster.isWorker) {
    opts.replicaId = workerReplicaId();
    // Processes must not append to one file: each worker keeps its own, merged by `aap-chaos report`.
    if (opts.journalFile !== undefined) opts.journalFile = workerJournalFile(opts.journalFile, workerIndex() ?? 1);
    if (opts.record !== undefined) opts.record = workerJournalFile(opts.record, workerIndex() ?? 1);
    // The audit log too: one hash chain per worker, each in its own file with its own head.
    if (opts.auditFile !== undefined) opts.auditFile = workerJournalFile(opts.auditFile, workerIndex() ?? 1);
    // N workers would print the same start-up lines N times.
    if ((workerIndex() ?? 1) > 1) opts.log = () => {};
    return 'replica';
  }
  if (workers <= 1) return 'replica';
  const refusal = workersRefusal(workers, stateUrlOf(opts.state, process.env));
  if (refusal) io.fail(refusal);
  // A bad scenario is one message from the primary, not one per worker.
  const loaded = opts.scenario !== undefined ? await loadScenarioInput(opts.scenario) : undefined;
  if (loaded && !loaded.ok) io.fail(new ScenarioRejectedError(loaded.problems.map(formatProblem)).message);
  runPrimary(workers, opts.replicaId, io.out);
  return 'primary';
}
