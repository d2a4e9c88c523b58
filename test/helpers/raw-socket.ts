// Raw bytes on one loopback socket, for requests no HTTP client would send (stalled, chunked by
// hand, cut short). Each part is written after the previous one left, then nothing more.
import net from 'node:net';

export interface RawExchange {
  /** Everything the server sent, as latin1 text. */
  reply: string;
  ms: number;
  /** False when the server still held the connection open at the bound. */
  closed: boolean;
}

/** Sends `parts` in order; resolves once the server closes the connection, or at the bound. */
export function sendRaw(url: string, parts: Array<string | Buffer>, boundMs = 8_000): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let reply = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ reply, ms: Date.now() - started, closed });
    };
    const timer = setTimeout(() => done(false), boundMs);
    socket.on('data', (c) => (reply += c.toString('latin1')));
    socket.on('close', () => done(true));
    socket.on('error', () => {});
    const writeNext = (i: number) => {
      if (i >= parts.length || socket.destroyed) return;
      socket.write(parts[i]!, () => setImmediate(() => writeNext(i + 1)));
    };
    writeNext(0);
  });
}

/** The JSON body of a raw HTTP reply. */
export function rawJsonBody<T = { error: { code: number; message: string } }>(reply: string): T {
  return JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as T;
}
