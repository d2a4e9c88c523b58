// What a buyer's processes cannot do to an exam: a helper that leaves the buyer's process group
// (setsid) and holds its output open does not keep the exam from ending, and Ctrl-C on the exam
// stops the buyer's group instead of leaving it running.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/exam.js';
import { waitFor } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

// The bounds below only turn a hang into a failure. This file runs at the suite's lower CPU
// priority, beside busier files, so an exam may take many seconds to start its proxy and buyer:
// each bound is wide, and the whole file's limit above their sum.
t.setTimeout(175_000);
/** Until the exam has started the buyer (the buyer writes its pid). */
const BUYER_STARTED_MS = 60_000;
/** Until the exam has stopped after a signal: the buyer's grace period (2 s) plus the exam's own shutdown. */
const EXAM_STOPPED_MS = 30_000;
const dir = tempDir(t, 'aap-chaos-buyer-');

/** Whether any live process is in group `pgid` (zombies, which only wait to be reaped, do not count). */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

/** Kills, at the end of the test, whatever pid a file names (a process the test made the buyer start). */
function killAtEnd(t: Test, pidFile: string, group = false): void {
  t.teardown(() => {
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      process.kill(group ? -pid : pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  });
}

/** `aap-chaos exam` in a child process; `ended` resolves with its exit code and output. */
function startExam(
  t: Test,
  args: string[],
): { child: ChildProcess; ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> } {
  const child = spawn(process.execPath, [BIN, 'exam', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, ended };
}

/** Resolves with `promise`, or rejects once `ms` have passed (then the test fails instead of hanging). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

t.test("a setsid helper holding the buyer's stdout open: the exam ends soon after the buyer exits, with what it printed", async (t) => {
  const pidFile = path.join(dir, 'helper.pid');
  killAtEnd(t, pidFile);
  // The buyer waits until the helper has left its group (the helper writes its pid after setsid), then exits.
  const buyer = `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 600' & while [ ! -s ${pidFile} ]; do sleep 0.05; done; echo printed-before-exit; exit 0`;
  const started = Date.now();
  const { ended } = startExam(t, ['--scenarios', 'passthrough', '--timeout', '60s', '--json', '--', 'sh', '-c', buyer]);
  const result = await within(ended, 45_000, 'the exam');
  t.ok(Date.now() - started < 45_000, `ended after ${Date.now() - started} ms, not at the 60 s timeout or never`);
  const run = JSON.parse(result.out).scenarios[0].runs[0];
  t.equal(run.buyer.exit_code, 0);
  t.equal(run.buyer.timed_out, false);
  t.match(run.buyer.stdout, 'printed-before-exit', 'what the buyer printed is kept');
});

for (const [name, buyerScript] of [
  ['a buyer that stops on the signal', 'echo $$ > PIDFILE; sleep 600'],
  ['a buyer that ignores it (killed after the grace period)', 'trap "" INT TERM; echo $$ > PIDFILE; while :; do sleep 1; done'],
] as const) {
  t.test(`Ctrl-C on the exam stops the buyer's whole group: ${name}`, async (t) => {
    const pidFile = path.join(dir, `${name.length}.pid`);
    killAtEnd(t, pidFile, true);
    const { child, ended } = startExam(t, ['--scenarios', 'passthrough', '--timeout', '120s', '--', 'sh', '-c', buyerScript.replace('PIDFILE', pidFile)]);
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', BUYER_STARTED_MS);
    const pgid = Number(readFileSync(pidFile, 'utf8'));
    t.ok(groupAlive(pgid), 'the buyer runs in its own group');
    child.kill('SIGINT');
    const result = await within(ended, EXAM_STOPPED_MS, 'the exam after SIGINT');
    t.equal(result.code, 130, 'exits 130, as after Ctrl-C');
    t.match(result.err, /SIGINT: stopping the buyer/);
    // A SIGKILL is delivered asynchronously: give it a moment, bounded.
    await waitFor(() => !groupAlive(pgid), 2_000).catch(() => {});
    t.notOk(groupAlive(pgid), "no process of the buyer's group is left");
  });
}
