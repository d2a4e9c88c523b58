/**
 * A reply's connection under HTTP/1.1 pipelining. Node queues the replies of pipelined requests and
 * hands a reply its socket only once every earlier reply on the connection is out (`res.socket` is
 * null until then). Breaking a connection waits for that moment, so earlier replies arrive whole.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Resolves with the connection once this reply is first in line on it; undefined if it closed first. */
export function whenFirstInLine(res: ServerResponse): Promise<Socket | undefined> {
  if (res.socket) return Promise.resolve(res.socket as Socket);
  return new Promise((resolve) => {
    const onSocket = (socket: Socket) => {
      res.off('close', onClose);
      // 'socket' is emitted just before Node flushes the bytes this reply wrote while queued;
      // resolving (a microtask later) lets that flush happen first.
      resolve(socket);
    };
    const onClose = () => {
      res.off('socket', onSocket);
      resolve(undefined);
    };
    res.once('socket', onSocket);
    res.once('close', onClose);
  });
}

/**
 * Breaks this reply's connection (a reply cut short, a transport fault): at once when the reply
 * holds the socket, else when its turn comes. Node 20 and 22 did the waiting in `res.destroy()`;
 * Node 24 only marks a queued reply destroyed, and every later reply on the connection then
 * waited behind it until the buyer gave up.
 */
export function breakConnection(res: ServerResponse, err?: Error): void {
  if (res.socket || res.destroyed) {
    res.destroy(err);
    return;
  }
  void whenFirstInLine(res).then((socket) => socket?.destroy(err));
}
