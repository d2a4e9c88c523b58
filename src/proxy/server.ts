/**
 * The proxy server: its options, its listener's life (listen, drain, close) and what every
 * request shares (the dealer connection pool, the profile, the engine in force, the observers).
 * One request's path is in request-path.ts.
 */
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ClassifiedRequest } from '../protocol/classify.js';
import { buildUpstreamUnreachable } from '../protocol/envelopes.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import { CardHistory } from '../effects/card.js';
import type { Decider } from '../engine/decision.js';
import { DEFAULT_SESSION_HEADER } from '../engine/sessions.js';
import type { RequestObserver } from '../journal/entry.js';
import { ClientKeyHasher, clientKeySource, scenarioHeaderKey, type ClientKeySource } from '../common/client-key.js';
import { Forwarder, type DealerTls } from './forward.js';
import { answerClientError, listenerOptions, type ListenerTimeouts } from '../http/listener-limits.js';
import { DEFAULT_MAX_BODY_BYTES } from './body-limit.js';
import { ProfileTracker, type ProfileSetting } from './profile.js';
import { PROXY_SOURCE, SOURCE_HEADER } from './marker-headers.js';
import { HostCheck, refuseHost } from '../http/host-check.js';
import { createListener, type TlsPair } from './tls.js';
import type { ProxyContext, RequestSettings } from './exchange.js';
import { handleRequest } from './request-path.js';
import type { Recorder } from '../recording/recorder.js';
import type { ExchangeTracer } from './trace-hooks.js';
import { drainAndClose, listenOn, trackSockets, urlOf } from './listener.js';
import { signaturesOf, type CardSigningKey } from '../protocol/card-signature.js';
import { answeredCardJwks } from '../http/card-jwks.js';
import { breakConnection } from '../http/reply-connection.js';

const IP_SOURCE: ClientKeySource = clientKeySource(undefined);

export { RULE_HEADER, SOURCE_HEADER } from './marker-headers.js';

export interface ProxyOptions {
  target: string;
  /** This dealer's name, when one listener fronts several dealers (see dealer-router.ts). */
  dealer?: string;
  /** The path prefix the buyer reaches this dealer under (`/d/NAME`), which the card rewrite keeps. */
  basePrefix?: string;
  /** The replica id each journal line carries (fleet mode). */
  replica?: string;
  /** Secret of the client-key hashes; a fleet shares one, so a buyer has one key on every replica. */
  clientKeySecret?: Buffer;
  port?: number;
  host?: string;
  /** Milliseconds to wait for the dealer's headers and between body chunks (default 30 000). */
  upstreamTimeoutMs?: number;
  /** Milliseconds a text/event-stream body may go without a chunk, instead of upstreamTimeoutMs (default 0: no limit). */
  streamIdleTimeoutMs?: number;
  /** Bodies larger than this are forwarded without being inspected (default 1 MiB). */
  maxInspectBytes?: number;
  /** Rewrite the agent card's interface URLs to point at the proxy (default true). */
  rewriteCard?: boolean;
  profile?: ProfileSetting;
  /** Who chose a fixed `profile`: the --profile flag (default) or the scenario. */
  profileOrigin?: 'flag' | 'scenario';
  /** Overrides the AAP extension URI named by -32008. */
  extensionUri?: string;
  /**
   * Who a journal line is attributed to: `ip` or `header:NAME`. When not given, the header every
   * rule of the scenario keys on, else the address.
   */
  clientKey?: string;
  /** Decide and journal, but change nothing. */
  dryRun?: boolean;
  /** Request header naming the session whose rule state, journal and report a request belongs to. */
  sessionHeader?: string;
  /** Header names whose values are secrets besides the usual ones (--redact-header). */
  redactHeaders?: readonly string[];
  /** Check what the dealer sends against the conformance rules (after the reply is out; bytes unchanged). */
  checkDealer?: boolean;
  /** Request bodies larger than this are refused with 413 (default 10 MB). */
  maxBodyBytes?: number;
  /** Time limits for a buyer sending its request (defaults in listener-limits.ts). */
  timeouts?: ListenerTimeouts;
  /** TLS trust for an https:// dealer (--ca, --insecure). */
  tls?: DealerTls;
  /** Keeps every exchange with the dealer, and its card, in a recording (--record). */
  recorder?: Recorder;
  /** Host names answered besides loopback names when listening on loopback (--allow-host); `*.NAME` covers subdomains. */
  allowHosts?: string[];
  /** Serve buyers over HTTPS with this certificate and key (--tls-cert, --tls-key). */
  serverTls?: TlsPair;
  /** Spans for every exchange (--otlp-endpoint); none when not given. */
  tracer?: ExchangeTracer;
  /** Signs every agent card served (--card-signing-key), and is served as the JWKS. */
  cardSigningKey?: CardSigningKey;
  /** Where the proxy says what it does on its own once it runs (a dealer's card signatures it removes). */
  log?: (line: string) => void;
}

export class ChaosProxy implements ProxyContext {
  readonly server: http.Server;
  readonly forwarder: Forwarder;
  readonly profile: ProfileTracker;
  /** Swapped atomically: a request reads it once and finishes under the engine it started with. */
  decider: Decider | undefined;
  observers: RequestObserver[] = [];
  /** The dealer's cards as they passed through, for `card: { stale }`. */
  readonly cardHistory = new CardHistory();
  dryRun: boolean;
  /** Set while the safety lever is pulled: who or what halted the faults. */
  haltedBy: string | undefined;
  readonly settings: RequestSettings;
  readonly recorder: Recorder | undefined;
  readonly tracer: ExchangeTracer | undefined;
  readonly cardSigningKey: CardSigningKey | undefined;
  /** Set once a card the dealer signed is seen. */
  private dealerSignsCards = false;
  private signatureRemovalSaid = false;
  private readonly opts: ProxyOptions;
  /** The client key the options fixed; undefined lets the scenario's rules decide. */
  private readonly fixedClientKey: ClientKeySource | undefined;
  private readonly clientKeys: ClientKeyHasher;
  private readonly scenarioClientKeys = new WeakMap<Decider, ClientKeySource>();
  private readonly sockets: Set<Socket>;
  private closing = false;
  /** Set by listen(), which knows the address. */
  private hostCheck: HostCheck | undefined;

  constructor(opts: ProxyOptions) {
    this.opts = opts;
    // `??`, not a spread: callers pass `undefined` for "not set", which must keep the default.
    this.settings = {
      maxInspectBytes: opts.maxInspectBytes ?? 1024 * 1024,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      rewriteCard: opts.rewriteCard ?? true,
      checkDealer: opts.checkDealer ?? false,
      sessionHeader: (opts.sessionHeader ?? DEFAULT_SESSION_HEADER).toLowerCase(),
      replica: opts.replica,
      dealer: opts.dealer,
      basePrefix: opts.basePrefix ?? '',
      secretHeaders: opts.redactHeaders ?? [],
    };
    this.dryRun = opts.dryRun ?? false;
    this.tracer = opts.tracer;
    this.clientKeys = new ClientKeyHasher(opts.clientKeySecret);
    this.forwarder = new Forwarder(opts.target, { timeoutMs: opts.upstreamTimeoutMs ?? 30_000, streamIdleTimeoutMs: opts.streamIdleTimeoutMs, tls: opts.tls });
    this.profile = new ProfileTracker(this.forwarder, opts.profile ?? 'auto', opts.extensionUri, opts.profileOrigin);
    this.recorder = opts.recorder;
    this.cardSigningKey = opts.cardSigningKey;
    this.profile.onCard = (card) => {
      this.recorder?.card(card);
      if (signaturesOf(card).length > 0) this.dealerSignsCards = true;
    };
    this.fixedClientKey = opts.clientKey !== undefined ? clientKeySource(opts.clientKey) : undefined;
    this.server = createListener(opts.serverTls, { keepAliveTimeout: 30_000, ...listenerOptions(opts.timeouts) }, (req, res) => {
      const refused = this.hostCheck?.refusal(req.headers.host);
      if (refused !== undefined) return refuseHost(res, refused, PROXY_SOURCE);
      if (answeredCardJwks(req, res, this.cardSigningKey)) return;
      handleRequest(this, req, res).catch((err) => this.failSafe(res, err));
    });
    this.sockets = trackSockets(this.server);
    // A malformed request line, or a buyer out of time, must never take the process down.
    this.server.on('clientError', answerClientError);
  }

  async listen(port = this.opts.port ?? 8080, host = this.opts.host ?? '127.0.0.1'): Promise<string> {
    this.hostCheck = new HostCheck(host, this.opts.allowHosts);
    await listenOn(this.server, port, host);
    await this.profile.start();
    return this.url;
  }

  get url(): string {
    return urlOf(this.server);
  }

  /** Stops accepting; requests in flight finish within `drainMs`, then remaining sockets are closed. */
  async close(drainMs = 5_000): Promise<void> {
    this.closing = true;
    this.profile.stop();
    await drainAndClose(this.server, this.sockets, drainMs);
    await this.forwarder.destroy();
  }

  /**
   * Said once per proxy, at start or when the first signed card passes: the dealer signs its card,
   * and the signatures the URL rewrite breaks are removed rather than served broken.
   */
  signatureRemovalNotice(): string | undefined {
    if (this.signatureRemovalSaid || !this.dealerSignsCards || this.cardSigningKey || !this.settings.rewriteCard) return undefined;
    this.signatureRemovalSaid = true;
    const dealer = this.settings.dealer === undefined ? 'the dealer' : `dealer ${this.settings.dealer}`;
    return `${dealer} signs its agent card: signatures that no longer hold once the card points at the proxy are removed (--card-signing-key signs the card served; --no-rewrite-card keeps the dealer's)`;
  }

  cardSignaturesRemoved(): void {
    const line = this.signatureRemovalNotice();
    if (line !== undefined) this.opts.log?.(line);
  }

  replyDone(): void {
    // While draining, a keep-alive connection is let go as soon as its last reply is out,
    // instead of holding close() open until the drain timeout.
    if (this.closing) setImmediate(() => this.server.closeIdleConnections());
  }

  clientOf(decider: Decider | undefined, request: ClassifiedRequest): { client: string; clientKey: string } {
    const source = this.clientKeySourceFor(decider);
    return { client: this.clientKeys.clientOf(source, request.headers, request.clientIp), clientKey: source.name };
  }

  /** The option's client key, else the one header the scenario's rules all key on, else the address. */
  private clientKeySourceFor(decider: Decider | undefined): ClientKeySource {
    if (this.fixedClientKey) return this.fixedClientKey;
    if (decider === undefined) return IP_SOURCE;
    let source = this.scenarioClientKeys.get(decider);
    if (source === undefined) {
      source = clientKeySource(scenarioHeaderKey((decider as { definition?: unknown }).definition));
      this.scenarioClientKeys.set(decider, source);
    }
    return source;
  }

  /** Last line of defence: a bug in the request path answers -32603 without a stack trace. */
  private failSafe(res: ServerResponse, err: unknown): void {
    process.emitWarning(`aap-chaos: request failed: ${(err as Error)?.message ?? String(err)}`);
    if (res.headersSent) {
      breakConnection(res);
      return;
    }
    const bytes = Buffer.from(stringifyJsonRpc(buildUpstreamUnreachable(this.profile.profile, null, 'internal proxy failure')));
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': bytes.length, [SOURCE_HEADER]: 'proxy' });
    res.end(bytes);
  }
}

export interface StartedProxy {
  url: string;
  port: number;
  proxy: ChaosProxy;
  close(): Promise<void>;
}

/** Starts a proxy in front of `target` and resolves once it listens. */
export async function startProxy(opts: ProxyOptions): Promise<StartedProxy> {
  const proxy = new ChaosProxy(opts);
  const url = await proxy.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1');
  return { url, port: (proxy.server.address() as AddressInfo).port, proxy, close: () => proxy.close() };
}
