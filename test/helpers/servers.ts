// Real loopback servers for tests: a scripted upstream dealer, and small request helpers.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  url: string;
  port: number;
  server: http.Server;
  /** Every request the upstream received, with its body. */
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  close(): Promise<void>;
}

/** Starts a loopback server whose handler gets the request with its body already read. */
export async function startUpstream(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Upstream> {
  const seen: Upstream['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP request over a fresh socket; resolves with the whole reply, rejects on a broken one. */
export function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? (opts.body ? 'POST' : 'GET'), headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('response aborted')));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A JSON-RPC SendMessage body for an AAP skill. */
export function skillRequest(skill: string, data: Record<string, unknown> = {}, id: string | number | null = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ data: { type: `${skill}.request`, ...data } }] } },
  });
}

/** Resolves once `predicate` holds, checking on each event-loop turn; fails after `ms`. */
export async function waitFor(predicate: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
