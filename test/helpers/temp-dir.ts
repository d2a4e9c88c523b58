// Temporary directories for tests: every directory a test makes is removed when that test ends, so
// a run leaves nothing behind in the temporary directory of a shared machine.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

/** A fresh directory under the system's temporary directory, removed when `t` ends. */
export function tempDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
