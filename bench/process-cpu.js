/**
 * The CPU time a process has used (user + system, all its threads), read from /proc: the bench's
 * second measure beside req/s. On a shared 2-core machine req/s moves with whatever else runs,
 * while the CPU a server spends per request moves much less, and it is what "the proxy's own work
 * against Node's" means. Undefined where /proc is not there.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** Milliseconds of CPU used so far by `pid`, or undefined when it cannot be read. */
export function cpuMsOf(pid) {
  return pid === undefined ? undefined : cpuMsIn(`/proc/${pid}/stat`);
}

/**
 * Milliseconds of CPU used so far by the main thread of `pid` alone (the one running JavaScript),
 * or undefined: the rest of `cpuMsOf` is V8's helper threads (concurrent marking, sweeping,
 * compiling) and libuv's, which a CPU profile of the main thread does not see.
 */
export function mainThreadCpuMsOf(pid) {
  return pid === undefined ? undefined : cpuMsIn(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsIn(statFile) {
  try {
    // The command name (field 2) may hold spaces: the counters are read after its closing parenthesis.
    const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
