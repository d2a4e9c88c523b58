// Loaded into every test process (package.json, tap's node-arg). The suite runs more test files at
// once than there are cores, because most of them wait on sockets and timers; but a test that
// grades how fast something happened (a buyer's retry waits, a delay's accuracy) must not lose the
// CPU to the others. So each file runs at a lower priority (nice 10, inherited by what it starts)
// unless it says `timing-sensitive` in its first lines; then it keeps the normal one and the
// scheduler gives it the CPU first. Lowering one's own priority needs no privilege.
import { openSync, readSync, closeSync } from 'node:fs';
import os from 'node:os';

const MARKER = 'timing-sensitive';

function head(file) {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(2048);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

try {
  const file = process.argv[1];
  if (file && !head(file).includes(MARKER)) os.setPriority(10);
} catch {
  // A priority is an optimisation: a file that cannot be read, or a system that refuses, runs as it is.
}
