/**
 * The benchmark's child processes: forked with an IPC channel, remembered by pid, and all stopped
 * by pid when the run ends, fails or is interrupted.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';

const running = new Set();

/**
 * Forks `script` and resolves once it reports `{ type: 'ready' }`. The returned handle can ask
 * the child something and await the answer of a given type.
 */
export async function startChild(script, args = [], { execArgv = [], name = script, env, execPath } = {}) {
  const child = fork(new URL(script, import.meta.url), args, {
    execArgv,
    ...(execPath ? { execPath } : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: env ? { ...process.env, ...env } : process.env,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`${name} (pid ${child.pid}) exited early with ${signal ?? `code ${code}`}`);
  });
  exited.catch(() => {}); // observed through `ask` and the ready race below
  const ready = await Promise.race([waitFor(child, 'ready'), exited]);
  return {
    pid: child.pid,
    ready,
    /** Sends `message` and resolves with the child's next message of type `replyType`. */
    ask(message, replyType) {
      const reply = waitFor(child, replyType);
      child.send(message);
      return Promise.race([reply, exited]);
    },
    stop: () => stopChild(child),
  };
}

function waitFor(child, type) {
  return new Promise((resolve) => {
    const onMessage = (msg) => {
      if (msg?.type !== type) return;
      child.off('message', onMessage);
      resolve(msg);
    };
    child.on('message', onMessage);
  });
}

/** Asks the child to stop; after 5 s it is killed by pid. */
async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  // A forked child is asked over IPC; a spawned program (nginx) gets SIGTERM, by its pid.
  if (child.connected) child.send({ type: 'stop' });
  else process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => process.kill(child.pid, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Remembers a process spawned without IPC, so that it is stopped by pid with the others. */
export function trackSpawned(child) {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return { pid: child.pid, stop: () => stopChild(child) };
}

export async function stopAllChildren() {
  await Promise.all([...running].map(stopChild));
}
