/**
 * One listener in front of several dealers: each dealer is reached under its own path prefix
 * `/d/NAME/` and has a proxy of its own (its connection pool, its profile read from its own card,
 * its card history), while every dealer shares the engine in force, the dry-run switch and the
 * observers (one journal, one set of metrics, one event stream). The prefix is taken off before the
 * dealer's proxy sees the request, and put back into the card's interface URLs, so a buyer that
 * follows a dealer's card keeps calling that dealer through this listener.
 *
 * Why a path prefix and not a port per dealer: the A2A SDK client and a plain HTTP buyer both call
 * the URL the card names, whatever its path, so a prefix costs them nothing; one port is one thing
 * to open in a firewall or a container, the dealer count is not bounded by free ports, and the
 * dealer's name shows in every URL and log line (docs/exam.md, "Several dealers").
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Decider } from '../engine/decision.js';
import type { RequestObserver } from '../journal/entry.js';
import { answerClientError, listenerOptions } from '../http/listener-limits.js';
import { PROXY_SOURCE, SOURCE_HEADER } from './marker-headers.js';
import { ChaosProxy, type ProxyOptions } from './server.js';
import { drainAndClose, listenOn, trackSockets, urlOf } from './listener.js';
import { answeredCardJwks } from '../http/card-jwks.js';
import { createListener } from './tls.js';
import { HostCheck, refuseHost } from '../http/host-check.js';

/** Where dealer NAME is reached on the listener. */
export const dealerPrefix = (name: string): string => `/d/${name}`;

const PREFIXED = /^\/d\/([A-Za-z0-9_-]{1,32})(?=[/?]|$)/;

export class DealerRouter {
  readonly server: http.Server;
  /** Each dealer's proxy, by name, in the order given. */
  readonly dealers = new Map<string, ChaosProxy>();
  /** Shared by every dealer's proxy: one journal line per request, whichever dealer served it. */
  readonly observers: RequestObserver[] = [];
  private readonly sockets: Set<Socket>;
  private closing = false;
  private readonly allowHosts: string[] | undefined;
  /** Set once listening: the Host names answered (loopback listeners refuse others; --allow-host). */
  private hostCheck: HostCheck | undefined;

  constructor(dealers: ReadonlyArray<{ name: string; url: string }>, opts: Omit<ProxyOptions, 'target' | 'dealer' | 'basePrefix'>) {
    for (const { name, url } of dealers) {
      const proxy = new ChaosProxy({ ...opts, target: url, dealer: name, basePrefix: dealerPrefix(name) });
      proxy.observers = this.observers;
      // While draining, a keep-alive connection of this listener is let go once its last reply is out.
      proxy.replyDone = () => {
        if (this.closing) setImmediate(() => this.server.closeIdleConnections());
      };
      this.dealers.set(name, proxy);
    }
    this.server = createListener(opts.serverTls, { keepAliveTimeout: 30_000, ...listenerOptions(opts.timeouts) }, (req, res) => this.route(req, res));
    this.allowHosts = opts.allowHosts;
    this.sockets = trackSockets(this.server);
    this.server.on('clientError', answerClientError);
  }

  /** The first dealer's proxy: what a single-dealer caller reads its profile and pool from. */
  get first(): ChaosProxy {
    return this.dealers.values().next().value!;
  }

  set decider(next: Decider | undefined) {
    for (const p of this.dealers.values()) p.decider = next;
  }
  get decider(): Decider | undefined {
    return this.first.decider;
  }

  set dryRun(on: boolean) {
    for (const p of this.dealers.values()) p.dryRun = on;
  }
  get dryRun(): boolean {
    return this.first.dryRun;
  }

  /**
   * The listener's URL of each dealer, with its trailing slash: the A2A SDK client resolves the
   * card path relative to the URL it is given (`new URL('.well-known/agent-card.json', base)`), which
   * without the slash would drop the dealer's name.
   */
  dealerUrls(): Record<string, string> {
    return Object.fromEntries([...this.dealers.keys()].map((name) => [name, `${this.url}${dealerPrefix(name)}/`]));
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const refused = this.hostCheck?.refusal(req.headers.host);
    if (refused !== undefined) return refuseHost(res, refused, PROXY_SOURCE);
    const m = PREFIXED.exec(req.url ?? '/');
    const proxy = m ? this.dealers.get(m[1]!) : undefined;
    // Every dealer's cards are signed with the one key: its JWKS is at the listener's root too.
    if (!m && answeredCardJwks(req, res, this.first.cardSigningKey)) return;
    if (!m || !proxy) {
      // Like a reverse proxy with no route: a plain 404 that says where the dealers are.
      const bytes = Buffer.from(JSON.stringify({ error: 'no dealer at this path; each dealer is under /d/NAME/', dealers: this.dealerUrls() }));
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': bytes.length, [SOURCE_HEADER]: 'proxy' });
      res.end(bytes);
      req.resume();
      return;
    }
    // BASE + "/a2a" (a buyer that joins with a slash of its own) is the same as BASE + "a2a".
    const rest = req.url!.slice(m[0].length).replace(/^\/+/, '');
    req.url = '/' + rest;
    proxy.server.emit('request', req, res);
  }

  async listen(port: number, host: string): Promise<string> {
    this.hostCheck = new HostCheck(host, this.allowHosts);
    await listenOn(this.server, port, host);
    await Promise.all([...this.dealers.values()].map((p) => p.profile.start()));
    return this.url;
  }

  get url(): string {
    return urlOf(this.server);
  }

  /** Stops accepting; requests in flight finish within `drainMs`, then remaining sockets are closed. */
  async close(drainMs = 5_000): Promise<void> {
    this.closing = true;
    await drainAndClose(this.server, this.sockets, drainMs);
    // Each dealer's listener never listened: closing it stops its card reads and empties its pool.
    await Promise.all([...this.dealers.values()].map((p) => p.close(0)));
  }
}
