// Loaded into every test process (package.json, tap's node-arg). The suite runs more test files at
// once than there are cores, because most of them wait on sockets and timers; but a test that
// grades how fast something happened (a buyer's retry waits, a delay's accuracy) must not lose the
// CPU to the others. So:
// - a file that says `timing-sensitive` in its first lines keeps the normal priority (or, where it
//   may, takes a higher one), and at most TIMING_SLOTS such files run at once (each waits here for
//   a slot before its tests start);
// - every other file runs at a lower priority (nice 10, inherited by what it starts), so the
//   scheduler gives the timing-sensitive ones the CPU first. Lowering one's priority needs no privilege.
// A slot is a listening socket in Linux's abstract namespace: the kernel frees it when its process
// ends, however it ends, so a killed test never leaves a slot taken.
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';

const MARKER = 'timing-sensitive';
const TIMING_SLOTS = 2;
const RETRY_MS = 50;

function head(file) {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(2048);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

function tryListen(name) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ path: `\0${name}` }, () => {
      // Held for the life of the process without keeping it alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Waits for one of the slots; resolves at once where abstract sockets do not exist (not Linux). */
async function takeTimingSlot() {
  if (process.platform !== 'linux') return;
  const names = Array.from({ length: TIMING_SLOTS }, (_, i) => `aap-chaos-tests-timing-${os.userInfo().uid}-${i}`);
  for (;;) {
    for (const name of names) if (await tryListen(name)) return;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/**
 * Sets the priority of every thread of this process: on Linux a priority belongs to a thread, and
 * the threads Node started before this module ran (the loader's, the compiler's, the collector's)
 * would keep the old one. Threads started later inherit it.
 */
function setProcessPriority(priority) {
  let threads = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the process's own call is all there is.
  }
  for (const tid of threads) os.setPriority(tid, priority);
}

/**
 * tap runs every test file with its processinfo hook, which it also passes to every process a test
 * starts (in NODE_OPTIONS, and re-added on each spawn). It records which files each process loaded,
 * for coverage and `--changed`; this suite runs with coverage off, and the hook doubled the CPU a
 * started CLI takes to start (0.7 → 1.4 s), hundreds of times per run. So processes started by
 * tests run without it; the test files themselves keep it.
 */
function startChildrenWithoutProcessInfo() {
  const hooks = globalThis[Symbol.for('process-on-spawn@*:singletonId')];
  if (hooks && Array.isArray(hooks.listeners)) hooks.listeners.length = 0;
  const options = process.env.NODE_OPTIONS;
  if (options?.includes('@tapjs/processinfo')) {
    const rest = options.replace(/"?--(?:import|loader|require)[= ]"?[^\s"]*@tapjs\/processinfo[^\s"]*"?/g, '').trim();
    if (rest) process.env.NODE_OPTIONS = rest;
    else delete process.env.NODE_OPTIONS;
  }
}
if (process.env.TAP_DISABLE_COVERAGE === '1') startChildrenWithoutProcessInfo();

let timing = false;
try {
  const file = process.argv[1];
  timing = Boolean(file) && head(file).includes(MARKER);
  if (!timing) setProcessPriority(10);
} catch {
  // A priority is an optimisation: a file that cannot be read, or a system that refuses, runs as it is.
}
if (timing) {
  try {
    // Raising a priority needs privilege (CI runs as root); elsewhere the normal one, above the rest, does.
    setProcessPriority(-5);
  } catch {}
  await takeTimingSlot();
}
