/**
 * Faults that break the buyer's connection (reset, close after a hang, a cut reply) under HTTP/1.1
 * pipelining. A fault acts on the socket only once its reply is first in line on the connection
 * (src/http/reply-connection.ts), so earlier replies always arrive whole. Later requests pipelined
 * behind the fault are lost with the connection: HTTP/1.1 has no way to break one exchange and keep
 * the ones after it, and buyers retry them as for any closed connection.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { whenFirstInLine } from '../http/reply-connection.js';

/** Sends a TCP RST on this reply's connection, after every earlier pipelined reply has gone out. */
export async function resetConnection(res: ServerResponse): Promise<void> {
  const socket = await whenFirstInLine(res);
  if (!socket || socket.destroyed) return;
  // An RST discards what is still buffered, so earlier replies are let out first.
  if (socket.writableLength > 0) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
  socket.resetAndDestroy();
}

/**
 * Closes this reply's connection after the bytes written so far (and earlier replies) have gone
 * out. The socket is destroyed once its last byte is written: a buyer whose unread body is still
 * arriving would otherwise keep a half-closed socket open.
 */
export async function endConnection(res: ServerResponse): Promise<void> {
  await handedToSocket(res);
  // A finished reply has already handed its socket back; nothing can be queued behind an unread body.
  const socket = res.writableFinished ? (res.req?.socket as Socket | undefined) : await whenFirstInLine(res);
  socket?.end(() => socket.destroy());
}

const NOTHING = Buffer.alloc(0);

/**
 * Resolves once every byte written to `res` so far is in its socket's hands (or `res` is gone).
 * Node 24 keeps a reply's writes in the response, corked, until the next tick: ending the socket
 * before then loses them (Node 20 and 22 hand them to the socket at once).
 */
function handedToSocket(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableFinished) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('close', done).off('finish', done);
      resolve();
    };
    res.once('close', done);
    // An ended reply is handed over when it finishes; one still open, once an empty write has gone after its bytes.
    if (res.writableEnded) res.once('finish', done);
    else res.write(NOTHING, done);
  });
}
