/**
 * The request path, top to bottom: accept → classify once → decide → apply effects →
 * forward or answer → journal. A reader can follow one request through this file.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { classifyRequest, type ClassifiedRequest } from '../protocol/classify.js';
import { buildUpstreamUnreachable } from '../protocol/envelopes.js';
import { rpcIdFromText, stringifyJsonRpc, topLevelIdText, withExactId } from '../protocol/rpc-id.js';
import { CONDITIONAL_REQUEST_HEADERS, isAgentCardPath, rewriteAgentCard, servedCard } from '../protocol/agent-card.js';
import type { ReplyPlan, TerminalAction } from '../effects/effect.js';
import { PASS_THROUGH, planIsEmpty, type Decider, type Decision } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { Profile } from '../protocol/codes.js';
import { describeUpstreamError, endToEndHeaders, Forwarder, type DealerTls, type UpstreamHead } from './forward.js';
import { ID_SCAN_BYTES, readPrefix, readRequestBody } from './body.js';
import { answerClientError, listenerOptions, type ListenerTimeouts } from './listener-limits.js';
import { DEFAULT_MAX_BODY_BYTES, refuseOversizedBody } from './body-limit.js';
import { endConnection, resetConnection } from './connection-faults.js';
import { ProfileTracker, type ProfileSetting } from './profile.js';
import { applyJsonPlan, malformedJsonBody, sseFaults, throttle } from './transforms.js';
import { buildJournalEntry } from '../journal/facts.js';
import { sessionOf } from './session-header.js';
import { DEFAULT_SESSION_HEADER } from '../engine/sessions.js';
import { boundJournalEntry } from '../journal/bounds.js';
import { BuyerWatch, collect, DealerReplyWatch, noteError, pipeToBuyer, readDealerJson, type Outcome } from './reply-io.js';
import { readRpcReply, readRpcReplyBytes } from '../protocol/reply-kind.js';
import { ClientKeyHasher, clientKeySource, scenarioHeaderKey, type ClientKeySource } from '../journal/client-key.js';
import { dealerViolations, DealerReplyCopy, isCheckedRequest } from './dealer-check.js';
import { CardHistory, cardReplacement, faultCard } from '../effects/card.js';

const IP_SOURCE: ClientKeySource = clientKeySource(undefined);

/** Response header on every reply the proxy wrote itself because the dealer could not be reached. */
export const SOURCE_HEADER = 'x-aap-chaos-source';
/** Response header naming the rule whose terminal effect answered instead of the dealer. */
export const RULE_HEADER = 'x-aap-chaos-rule';

export interface ProxyOptions {
  target: string;
  /** The replica id each journal line carries (fleet mode). */
  replica?: string;
  /** Secret of the client-key hashes; a fleet shares one, so a buyer has one key on every replica. */
  clientKeySecret?: Buffer;
  port?: number;
  host?: string;
  /** Milliseconds to wait for the dealer's headers and between body chunks (default 30 000). */
  upstreamTimeoutMs?: number;
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
  /** Check what the dealer sends against the conformance rules (after the reply is out; bytes unchanged). */
  checkDealer?: boolean;
  /** Request bodies larger than this are refused with 413 (default 10 MB). */
  maxBodyBytes?: number;
  /** Time limits for a buyer sending its request (defaults in listener-limits.ts). */
  timeouts?: ListenerTimeouts;
  /** TLS trust for an https:// dealer (--ca, --insecure). */
  tls?: DealerTls;
}

export interface RequestObserver {
  onRequestDone(entry: JournalEntry): void;
}

export class ChaosProxy {
  readonly server: http.Server;
  readonly forwarder: Forwarder;
  readonly profile: ProfileTracker;
  /** Swapped atomically: a request reads it once and finishes under the engine it started with. */
  decider: Decider | undefined;
  observers: RequestObserver[] = [];
  /** The dealer's cards as they passed through, for `card: { stale }`. */
  readonly cardHistory = new CardHistory();
  dryRun: boolean;
  private readonly opts: Required<Pick<ProxyOptions, 'maxInspectBytes' | 'rewriteCard'>> & ProxyOptions;
  private readonly sessionHeader: string;
  /** The client key the options fixed; undefined lets the scenario's rules decide. */
  private readonly fixedClientKey: ClientKeySource | undefined;
  private readonly clientKeys: ClientKeyHasher;
  private readonly scenarioClientKeys = new WeakMap<Decider, ClientKeySource>();
  private readonly sockets = new Set<import('node:net').Socket>();
  private closing = false;

  constructor(opts: ProxyOptions) {
    // `??`, not a spread: callers pass `undefined` for "not set", which must keep the default.
    this.opts = { ...opts, maxInspectBytes: opts.maxInspectBytes ?? 1024 * 1024, rewriteCard: opts.rewriteCard ?? true };
    this.dryRun = opts.dryRun ?? false;
    this.clientKeys = new ClientKeyHasher(opts.clientKeySecret);
    this.forwarder = new Forwarder(opts.target, { timeoutMs: opts.upstreamTimeoutMs ?? 30_000, tls: opts.tls });
    this.profile = new ProfileTracker(this.forwarder, opts.profile ?? 'auto', opts.extensionUri, opts.profileOrigin);
    this.sessionHeader = (opts.sessionHeader ?? DEFAULT_SESSION_HEADER).toLowerCase();
    this.fixedClientKey = opts.clientKey !== undefined ? clientKeySource(opts.clientKey) : undefined;
    this.server = http.createServer({ keepAliveTimeout: 30_000, ...listenerOptions(opts.timeouts) }, (req, res) => {
      this.handle(req, res).catch((err) => this.failSafe(res, err));
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // A malformed request line, or a buyer out of time, must never take the process down.
    this.server.on('clientError', answerClientError);
  }

  async listen(port = this.opts.port ?? 8080, host = this.opts.host ?? '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    await this.profile.start();
    return this.url;
  }

  get url(): string {
    const addr = this.server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${host}:${addr.port}`;
  }

  /** Stops accepting; requests in flight finish within `drainMs`, then remaining sockets are closed. */
  async close(drainMs = 5_000): Promise<void> {
    this.closing = true;
    this.profile.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => {
      for (const s of this.sockets) s.destroy();
    }, drainMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
    await this.forwarder.destroy();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const t0 = performance.now();
    if (refuseOversizedBody(req, res, this.opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) return;
    const body = await readRequestBody(req, this.opts.maxInspectBytes);
    const request = classifyRequest({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      clientIp: req.socket.remoteAddress ?? 'unknown',
      body: body.buffer,
      oversized: body.oversized,
    });
    const { profile, extensionUri } = this.profile;
    const inForce = { profile, extensionUri };
    const decider = this.decider;
    const notes: string[] = [];
    const session = sessionOf(request.headers, this.sessionHeader, notes);
    const decided = decider ? decider.decide({ request, profile, extensionUri, session }) : PASS_THROUGH;
    // Only a shared state store makes the decision wait; the memory store decides synchronously.
    const decision = decided instanceof Promise ? await decided : decided;

    const outcome: Outcome = { source: 'dealer', notes };
    let terminal = decision.terminal;
    let plan = decision.plan;
    if (this.dryRun) {
      terminal = undefined;
      plan = PASS_THROUGH.plan;
    }
    const isCard = (this.opts.rewriteCard || plan.card !== undefined) && request.httpMethod === 'GET' && isAgentCardPath(request.path);
    // The buyer leaving cancels everything still pending for it: the dealer call, a delay, a hang.
    const buyer = new BuyerWatch(res);
    try {
      if (!terminal && !isCard && planIsEmpty(plan)) {
        await this.passThrough(res, request, body.forward, buyer, outcome);
      } else {
        try {
          if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal: buyer.signal });
          if (terminal) await this.answerInjected(req, res, request, terminal, plan, body.forward, buyer, outcome);
          else await this.forward(req, res, request, plan, isCard, body.forward, buyer, outcome);
        } catch (err) {
          if (!buyer.gone) throw err;
        }
      }
    } finally {
      decision.release();
      // Answered before the body was read through (the dealer replied early, or a fault did):
      // the rest of it would block the connection, so it closes once this reply is out.
      if (!req.complete) void endConnection(res);
      // While draining, a keep-alive connection is let go as soon as its last reply is out,
      // instead of holding close() open until the drain timeout.
      if (this.closing) setImmediate(() => this.server.closeIdleConnections());
    }
    this.record(request, decider, decision, outcome, res, startedAt, performance.now() - t0, !res.writableFinished, inForce, session);
  }

  /** A terminal effect answers instead of the dealer. */
  private async answerInjected(
    req: IncomingMessage,
    res: ServerResponse,
    request: ClassifiedRequest,
    terminal: { ruleId: string; action: TerminalAction },
    plan: ReplyPlan,
    forwardBody: Buffer | Readable | null,
    buyer: BuyerWatch,
    outcome: Outcome,
  ): Promise<void> {
    const { action, ruleId } = terminal;
    outcome.source = 'injected';
    switch (action.type) {
      case 'reply': {
        let bodyBytes = action.body;
        if (!action.envelope && request.kind === 'jsonrpc') {
          // An `http:` reply: what the buyer can make of its body (an HTML 502 is no answer at all).
          const read = String(action.headers?.['content-type'] ?? '').includes('json') ? readRpcReplyBytes(action.body) : { kind: 'not_jsonrpc' as const, error: undefined };
          if (read.error) outcome.error = read.error;
          else outcome.body = read.kind;
        }
        if (action.envelope) {
          outcome.error = action.envelope.error;
          let envelope: unknown = action.envelope;
          // Too large to classify: the id is looked for in the body's first bytes only (null if not there).
          if (request.kind === 'oversized') envelope = { ...action.envelope, id: rpcIdFromText(topLevelIdText(await readPrefix(forwardBody, ID_SCAN_BYTES, buyer.signal))) };
          if (plan.envelope) envelope = applyJsonPlan(envelope, { ...plan, patches: [] }, this.profile.profile, outcome.notes);
          if (envelope !== action.envelope) bodyBytes = Buffer.from(stringifyJsonRpc(envelope));
        }
        const headers: Record<string, string | number> = { ...action.headers, [RULE_HEADER]: ruleId };
        if (!('content-length' in headers)) headers['content-length'] = bodyBytes.length;
        // The unread rest of an oversized body must not be taken for the next request.
        if (request.kind === 'oversized') headers.connection = 'close';
        outcome.status = action.status;
        await this.sendBytes(res, action.status, headers, bodyBytes, plan, buyer);
        return;
      }
      case 'reset':
        outcome.status = 0;
        outcome.lost = 'reset';
        await resetConnection(res);
        return;
      case 'hang':
        outcome.status = 0;
        outcome.lost = 'hang';
        try {
          await sleep(action.maxMs, undefined, { signal: buyer.signal });
        } catch {
          return; // the buyer gave up first
        }
        res.destroy(); // Node waits until earlier pipelined replies are out
        return;
      case 'malformed_json': {
        const bytes = malformedJsonBody(request.id);
        outcome.status = 200;
        outcome.body = 'malformed_json';
        await this.sendBytes(res, 200, { 'content-type': 'application/json', 'content-length': bytes.length, [RULE_HEADER]: ruleId }, bytes, plan, buyer);
        return;
      }
      case 'truncate': {
        const up = await this.callDealer(res, request, forwardBody, buyer.signal, outcome);
        if (!up) return;
        outcome.status = up.statusCode;
        res.writeHead(up.statusCode, endToEndHeaders(up.headers));
        let sent = 0;
        for await (const chunk of up.body as AsyncIterable<Buffer>) {
          const room = action.bytes - sent;
          if (chunk.length >= room) {
            if (room > 0) res.write(chunk.subarray(0, room));
            up.body.destroy();
            outcome.lost = 'truncated';
            // The bytes written so far still go out; then the connection closes mid-body.
            await endConnection(res);
            return;
          }
          res.write(chunk);
          sent += chunk.length;
        }
        res.end(); // the reply was shorter than the cut: nothing to truncate
        return;
      }
    }
  }

  /** Forwards to the dealer for a reply that the plan (or the card rewrite) changes. */
  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    request: ClassifiedRequest,
    plan: ReplyPlan,
    isCard: boolean,
    forwardBody: Buffer | Readable | null,
    buyer: BuyerWatch,
    outcome: Outcome,
  ): Promise<void> {
    const replacement = plan.card && cardReplacement(plan.card);
    if (replacement) {
      outcome.source = 'injected';
      outcome.status = replacement.status;
      await this.sendBytes(res, replacement.status, { ...replacement.headers, 'content-length': replacement.body.length }, replacement.body, plan, buyer);
      return;
    }
    const up = await this.callDealer(res, request, forwardBody, buyer.signal, outcome, isCard);
    if (!up) return;
    outcome.status = up.statusCode;
    const copy = (outcome.dealerCopy = this.dealerCopyFor(request, up.statusCode, up.headers));
    const headers = endToEndHeaders(up.headers);
    const contentType = String(headers['content-type'] ?? '');

    const wantsJson = isCard || plan.patches.length > 0 || plan.envelope !== undefined;
    if (wantsJson && contentType.includes('json')) {
      const raw = Buffer.concat(await collect(up.body as AsyncIterable<Buffer>));
      copy?.push(raw);
      let bytes: Buffer = raw;
      try {
        let json = JSON.parse(raw.toString('utf8')) as unknown;
        if (isCard && json && typeof json === 'object' && !Array.isArray(json)) {
          this.profile.observeCard(json);
          this.cardHistory.record(json);
          if (plan.card) json = faultCard(json, plan.card, this.cardHistory, outcome.notes);
          // After a card fault too: a changed card must not send buyers around the proxy.
          if (this.opts.rewriteCard && json && typeof json === 'object' && !Array.isArray(json))
            json = rewriteAgentCard(json as Record<string, unknown>, `http://${req.headers.host ?? 'localhost'}`, this.forwarder.basePath);
        }
        json = withExactId(applyJsonPlan(json, plan, this.profile.profile, outcome.notes), raw);
        noteError(outcome, json);
        if (!isCard && request.kind === 'jsonrpc' && !outcome.error) outcome.body = readRpcReply(json).kind;
        bytes = Buffer.from(stringifyJsonRpc(json));
      } catch {
        outcome.notes.push('reply not changed: the dealer response is not valid JSON');
        if (request.kind === 'jsonrpc') outcome.body = 'malformed_json';
      }
      delete headers['content-length'];
      delete headers['content-encoding'];
      let status = up.statusCode;
      if (isCard) ({ status, bytes } = servedCard(headers, bytes, status, req.headers['if-none-match']));
      outcome.status = status;
      headers['content-length'] = String(bytes.length);
      await this.sendBytes(res, status, headers, bytes, plan, buyer);
      return;
    }
    if (wantsJson) outcome.notes.push(`reply not changed: content-type "${contentType}" is not JSON`);

    let stream: Readable = up.body;
    if (copy) stream.on('data', (chunk: Buffer) => copy.push(chunk));
    if (plan.sse) {
      if (contentType.startsWith('text/event-stream')) stream = stream.pipe(sseFaults(plan.sse, request.id, this.profile.profile));
      else outcome.notes.push(`stream faults not applied: content-type "${contentType}" is not text/event-stream`);
    }
    if (plan.bytesPerSecond) stream = stream.pipe(throttle(plan.bytesPerSecond));
    if (plan.sse) delete headers['content-length']; // events may be cut or replaced
    res.writeHead(up.statusCode, headers);
    res.flushHeaders();
    const watch = isCard ? undefined : new DealerReplyWatch(up.statusCode, contentType, request.kind === 'jsonrpc');
    const piped = pipeToBuyer(stream, res, buyer.signal, () => (outcome.lost = 'truncated'));
    // Attached after the pipe, so both see every chunk (what the buyer got, faults included).
    if (watch) stream.on('data', (chunk: Buffer) => watch.push(chunk));
    await piped;
    watch?.finish(outcome);
  }

  /** The hot path: no effect touches this reply, so its bytes go straight through. */
  private passThrough(res: ServerResponse, request: ClassifiedRequest, forwardBody: Buffer | Readable | null, buyer: BuyerWatch, outcome: Outcome): Promise<void> {
    const upstreamStart = performance.now();
    return new Promise<void>((resolve) => {
      let watch: DealerReplyWatch | undefined;
      this.forwarder.dispatch(
        { path: this.forwarder.upstreamPath(request.url), method: request.httpMethod, headers: this.upstreamHeaders(request), body: forwardBody },
        (abort) => buyer.onGone(abort),
        {
          onHead: (head: UpstreamHead) => {
            outcome.status = outcome.upstreamStatus = head.statusCode;
            outcome.upstreamMs = performance.now() - upstreamStart;
            outcome.dealerCopy = this.dealerCopyFor(request, head.statusCode, head.headers);
            const headers = endToEndHeaders(head.headers);
            const ct = headers['content-type'];
            // A JSON reply may be the dealer's own error, which the journal names.
            watch = new DealerReplyWatch(head.statusCode, typeof ct === 'string' ? ct : '', request.kind === 'jsonrpc');
            res.writeHead(head.statusCode, headers);
            if (typeof ct === 'string' && ct.startsWith('text/event-stream')) res.flushHeaders();
          },
          onData: (chunk) => {
            outcome.dealerCopy?.push(chunk);
            watch?.push(chunk);
            return res.write(chunk);
          },
          onDrain: (resume) => res.once('drain', resume),
          onEnd: () => {
            res.end();
            watch?.finish(outcome);
            resolve();
          },
          onError: (err) => {
            if (res.headersSent) {
              // The dealer died mid-reply: the buyer sees a broken response.
              if (!buyer.gone) outcome.lost = 'truncated';
              res.destroy(err);
            } else if (!buyer.gone) this.answerUnreachable(res, request, err, outcome);
            resolve();
          },
        },
      );
    });
  }

  /** Calls the dealer for a reply that effects will look at; answers 502 itself when that fails. */
  private async callDealer(
    res: ServerResponse,
    request: ClassifiedRequest,
    forwardBody: Buffer | Readable | null,
    signal: AbortSignal,
    outcome: Outcome,
    identity = false,
  ) {
    const upstreamStart = performance.now();
    const headers = this.upstreamHeaders(request);
    if (identity) {
      // The card is rewritten: ask for plain bytes, and for all of them (conditional requests are answered here).
      delete headers['accept-encoding'];
      for (const name of CONDITIONAL_REQUEST_HEADERS) delete headers[name];
    }
    try {
      const up = await this.forwarder.request({ path: this.forwarder.upstreamPath(request.url), method: request.httpMethod, headers, body: forwardBody, signal });
      outcome.upstreamStatus = up.statusCode;
      outcome.upstreamMs = performance.now() - upstreamStart;
      return up;
    } catch (err) {
      if (!signal.aborted) this.answerUnreachable(res, request, err, outcome);
      return undefined;
    }
  }

  /** With --check-dealer, a bounded copy of a reply the conformance rules look at. */
  private dealerCopyFor(request: ClassifiedRequest, status: number, headers: import('node:http').IncomingHttpHeaders): DealerReplyCopy | undefined {
    return this.opts.checkDealer && isCheckedRequest(request) ? new DealerReplyCopy(status, headers, this.opts.maxInspectBytes) : undefined;
  }

  private upstreamHeaders(request: ClassifiedRequest): Record<string, string | string[]> {
    const headers = endToEndHeaders(request.headers);
    const ip = request.clientIp;
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${prior}, ${ip}` : ip;
    if (request.headers.host) headers['x-forwarded-host'] ??= request.headers.host;
    headers['x-forwarded-proto'] ??= 'http';
    if (Buffer.isBuffer(request.body)) delete headers['content-length'];
    return headers;
  }

  /** The dealer could not be reached: a -32603 envelope on HTTP 502, marked as the proxy's own. */
  private answerUnreachable(res: ServerResponse, request: ClassifiedRequest, err: unknown, outcome: Outcome): void {
    const { cause } = describeUpstreamError(err, this.forwarder.origin);
    const envelope = buildUpstreamUnreachable(this.profile.profile, request.id, cause);
    const bytes = Buffer.from(stringifyJsonRpc(envelope));
    outcome.source = 'proxy';
    outcome.status = 502;
    outcome.error = envelope.error;
    outcome.notes.push(cause);
    if (res.headersSent) {
      outcome.lost = 'truncated';
      res.destroy();
      return;
    }
    res.writeHead(502, { 'content-type': 'application/json', 'content-length': bytes.length, [SOURCE_HEADER]: 'proxy' });
    res.end(bytes);
  }

  /** Sends a complete body, slowly when the plan says so. */
  private async sendBytes(res: ServerResponse, status: number, headers: Record<string, string | number | string[]>, bytes: Buffer, plan: ReplyPlan, buyer: BuyerWatch): Promise<void> {
    if (!plan.bytesPerSecond) {
      res.writeHead(status, headers);
      res.end(bytes);
      return;
    }
    res.writeHead(status, headers);
    res.flushHeaders();
    await pipeToBuyer(Readable.from([bytes]).pipe(throttle(plan.bytesPerSecond)), res, buyer.signal);
  }

  private record(
    request: ClassifiedRequest,
    decider: Decider | undefined,
    decision: Decision,
    outcome: Outcome,
    res: ServerResponse,
    startedAt: number,
    durationMs: number,
    aborted: boolean,
    inForce: { profile: Profile; extensionUri: string },
    session: string | undefined,
  ): void {
    if (this.observers.length === 0) return;
    readDealerJson(outcome, request.kind === 'jsonrpc');
    const source = this.clientKeySourceFor(decider);
    const entry = boundJournalEntry(buildJournalEntry(request, decision, outcome, {
      startedAt,
      durationMs,
      client: this.clientKeys.clientOf(source, request.headers, request.clientIp),
      clientKey: source.name,
      status: aborted ? 0 : (outcome.status ?? res.statusCode),
      aborted,
      dryRun: this.dryRun,
      ...inForce,
      session,
      replica: this.opts.replica,
    }));
    // The reply is out: checking the dealer's copy now cannot change its bytes or its timing.
    if (outcome.dealerCopy && !aborted) entry.conformance = dealerViolations(request, outcome.dealerCopy, this.profile);
    for (const o of this.observers) o.onRequestDone(entry);
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
      res.destroy();
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
