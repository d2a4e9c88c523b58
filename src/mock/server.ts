/** Runs a mock dealer on its own HTTP server (`aap-chaos mock`, tests, and the default upstream). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockDealer, type MockDealer, type MockDealerOptions } from './dealer.js';
import { HostCheck, refuseHost } from '../http/host-check.js';
import { answerClientError, listenerOptions, type ListenerTimeouts } from '../http/listener-limits.js';
import { loadCardSigningKey } from '../common/card-key-file.js';

export interface RunningMockDealer {
  /** Base URL, e.g. http://127.0.0.1:41234 (the card is under it, JSON-RPC at /a2a). */
  url: string;
  port: number;
  dealer: MockDealer;
  close(): Promise<void>;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a dealer's request handler (the mock's, a replay's) under the listener limits, once it listens. */
export async function serveDealer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  opts: { port?: number; host?: string; timeouts?: ListenerTimeouts } = {},
): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  // On loopback only loopback names: a web page re-pointed at this port (DNS rebinding) must not
  // reach a dealer the proxy alone calls — in spy mode it would be relayed and recorded.
  const hostCheck = new HostCheck(host, [], 'dealer', () => '; it is called through the aap-chaos proxy');
  const server = createServer(listenerOptions(opts.timeouts), (req, res) => {
    const refusal = hostCheck.refusal(req.headers.host);
    if (refusal) return refuseHost(res, refusal);
    handle(req, res);
  });
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets (SDK clients keep them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

/**
 * Starts a mock dealer once it listens. `signCard` names a key file to sign the card with (the
 * `mock --sign-card` flag); a caller that loaded the key already passes `cardSigningKey`.
 */
export async function startMockDealer(
  opts: MockDealerOptions & { port?: number; host?: string; timeouts?: ListenerTimeouts; signCard?: string } = {},
): Promise<RunningMockDealer> {
  const cardSigningKey = opts.cardSigningKey ?? (opts.signCard !== undefined ? await loadCardSigningKey(opts.signCard, '--sign-card') : undefined);
  const dealer = createMockDealer({ ...opts, cardSigningKey });
  const server = await serveDealer((req, res) => dealer.handle(req, res), opts);
  return { ...server, dealer };
}
