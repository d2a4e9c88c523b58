/**
 * nginx as a reference beside the Node floors, when it is installed: a C reverse proxy with a
 * keep-alive upstream, started with its own config and temp dir on a free loopback port and
 * stopped by its pid. Not a target; it shows what a proxy that is not Node costs on this machine.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { writeFile, readFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { trackSpawned } from './children.js';
import { removeWorkDir, workDir } from './work-dir.js';

const CANDIDATES = [process.env.AAP_CHAOS_BENCH_NGINX, '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].filter(Boolean);

/** The nginx binary, or undefined when none is installed. */
export function nginxBinary() {
  for (const file of CANDIDATES) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* try the next place */
    }
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts nginx in front of `dealerUrl`, its files in a new folder under `parent` (the bench's work
 * folder, removed with it); resolves with `{ url, pid, stop }`.
 */
export async function startNginx(binary, dealerUrl, parent = os.tmpdir()) {
  const dir = workDir('aap-chaos-bench-nginx-', parent);
  const port = await freePort();
  const upstream = new URL(dealerUrl).host;
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream dealer { server ${upstream}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 100000;
    location / {
      proxy_pass http://dealer;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering on;
    }
  }
}
`,
  );
  const child = spawn(binary, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const handle = trackSpawned(child);
  // Bounded wait for the port: nginx forks its worker after binding, so a connect proves it serves.
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    if (await accepts(port)) return { url: `http://127.0.0.1:${port}`, ...handle };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await handle.stop();
  const log = await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '');
  removeWorkDir(dir);
  throw new Error(`nginx did not start on 127.0.0.1:${port}: ${(stderr + log).trim().slice(0, 400) || 'no message'}`);
}
