/**
 * The life of a proxy listener, shared by the one-dealer proxy and the several-dealer router:
 * listen, say where, and close with a drain (requests in flight may finish, then sockets go).
 */
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { schemeOf } from './tls.js';

/** Keeps the open sockets of `server`, so a drain can end the ones still open. */
export function trackSockets(server: http.Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

export function listenOn(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function urlOf(server: http.Server): string {
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `${schemeOf(server)}://${host}:${addr.port}`;
}

/** Stops accepting; requests in flight finish within `drainMs`, then remaining sockets are closed. */
export async function drainAndClose(server: http.Server, sockets: Set<Socket>, drainMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    for (const s of sockets) s.destroy();
  }, drainMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}
