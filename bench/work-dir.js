/**
 * The bench's temporary folders. Each one is removed when its process ends, however it ends: at
 * the end of the run, on a failure, or on Ctrl-C or SIGTERM, whose handlers end with
 * process.exit and so run the 'exit' listener below. An interrupted run used to leave its folder
 * (a journal file, the 10,000-rule scenario, nginx's files) in the shared temp directory, and a
 * load child stopped during a wrk round its script. A folder a run prints the path of (profiles)
 * is kept with `keepWorkDir`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const live = new Set();
process.on('exit', () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
});

/** A new folder `parent/prefixXXXXXX`, removed when this process ends unless kept. */
export function workDir(prefix, parent = os.tmpdir()) {
  const dir = mkdtempSync(path.join(parent, prefix));
  live.add(dir);
  return dir;
}

/** Removes the folder now. */
export function removeWorkDir(dir) {
  live.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Leaves the folder in place when the process ends (it holds what the run printed the path of). */
export function keepWorkDir(dir) {
  live.delete(dir);
}
