/** Debian's redis-server for the bench and the soak: started on 127.0.0.1, stopped by pid. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

export const REDIS_SERVER = '/usr/bin/redis-server';

export const redisInstalled = () => existsSync(REDIS_SERVER);

/** A port nothing listens on now. */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts redis-server without persistence (on `port`, or a free one) and resolves once it answers PING. */
export async function startRedis(dir, port) {
  port ??= await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pong = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.write('PING\r\n'));
      s.setTimeout(500, () => s.destroy());
      s.once('data', (d) => (s.destroy(), resolve(d.toString().startsWith('+PONG'))));
      s.once('error', () => resolve(false));
      s.once('close', () => resolve(false));
    });
    if (pong) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    /** Stops the server and resolves once it has exited. */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}
