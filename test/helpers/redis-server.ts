// A real redis-server for fleet-mode tests: a free loopback port, its own temporary directory, no
// persistence; stopped by pid, and restartable on the same port (to test losing Redis mid-run).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { Test } from 'tap';
import { REDIS_SERVER_PATH } from './debian-services.js';
import { tempDir } from './temp-dir.js';

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM to its pid, SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  /** Stops it (its directory is removed when the test ends). */
  close(): Promise<void>;
}

/** A free loopback port: bound once by the OS, then released for the server to take. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once the server on `port` answers PING with PONG; bounded by `timeoutMs`. */
async function waitForPong(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with code ${child.exitCode}`);
    const answered = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let reply = '';
      socket.setTimeout(500, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (d) => {
        reply += d.toString();
        if (reply.includes('\r\n')) {
          socket.destroy();
          // A server with --requirepass answers, refusing: it is up all the same.
          resolve(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
        }
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
    if (answered) return;
    // Polling a server that is still starting: a short pause between attempts, bounded by the deadline.
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

/** `extraArgs` go to redis-server as they are (e.g. ['--requirepass', 'secret']); its directory is removed when `t` ends. */
export async function startRedis(t: Test, extraArgs: string[] = []): Promise<TestRedis> {
  const dir = tempDir(t, 'aap-chaos-redis-');
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const proc = spawn(REDIS_SERVER_PATH, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs], {
      stdio: 'ignore',
    });
    child = proc;
    await waitForPong(port, proc);
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    process.kill(proc.pid!, 'SIGTERM');
    const timer = setTimeout(() => {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(proc.pid!, 'SIGKILL');
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    start,
    stop,
    async close() {
      await stop();
    },
  };
}
