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
import { isAgentCardPath, rewriteAgentCard } from '../protocol/agent-card.js';
import type { ReplyPlan, TerminalAction } from '../effects/effect.js';
import { PASS_THROUGH, planIsEmpty, type Decider, type Decision } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { Profile } from '../protocol/codes.js';
import { describeUpstreamError, endToEndHeaders, Forwarder, type UpstreamHead } from './forward.js';
import { readRequestBody } from './body.js';
import { ProfileTracker, type ProfileSetting } from './profile.js';
import { applyJsonPlan, malformedJsonBody, sseFaults, throttle } from './transforms.js';
import { buildJournalEntry } from '../journal/facts.js';
import { BuyerWatch, collect, DealerReplyWatch, noteError, pipeToBuyer, readDealerJson, type Outcome } from './reply-io.js';
import { readRpcReply, readRpcReplyBytes } from '../protocol/reply-kind.js';
import { ClientKeyHasher, clientKeySource, scenarioHeaderKey, type ClientKeySource } from '../journal/client-key.js';

const IP_SOURCE: ClientKeySource = clientKeySource(undefined);

/** Response header on every reply the proxy wrote itself because the dealer could not be reached. */
export const SOURCE_HEADER = 'x-aap-chaos-source';
/** Response header naming the rule whose terminal effect answered instead of the dealer. */
export const RULE_HEADER = 'x-aap-chaos-rule';

export interface ProxyOptions {
  target: string;
  port?: number;
  host?: string;
  /** Milliseconds to wait for the dealer's headers and between body chunks (default 30 000). */
  upstreamTimeoutMs?: number;
  /** Bodies larger than this are forwarded without being inspected (default 1 MiB). */
  maxInspectBytes?: number;
  /** Rewrite the agent card's interface URLs to point at the proxy (default true). */
  rewriteCard?: boolean;
  profile?: ProfileSetting;
  /** Overrides the AAP extension URI named by -32008. */
  extensionUri?: string;
  /**
   * Who a journal line is attributed to: `ip` or `header:NAME`. When not given, the header every
   * rule of the scenario keys on, else the address.
   */
  clientKey?: string;
  /** Decide and journal, but change nothing. */
  dryRun?: boolean;
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
  dryRun: boolean;
  private readonly opts: Required<Pick<ProxyOptions, 'maxInspectBytes' | 'rewriteCard'>> & ProxyOptions;
  /** The client key the options fixed; undefined lets the scenario's rules decide. */
  private readonly fixedClientKey: ClientKeySource | undefined;
  private readonly clientKeys = new ClientKeyHasher();
  private readonly scenarioClientKeys = new WeakMap<Decider, ClientKeySource>();
  private readonly sockets = new Set<import('node:net').Socket>();
  private closing = false;

  constructor(opts: ProxyOptions) {
    // `??`, not a spread: callers pass `undefined` for "not set", which must keep the default.
    this.opts = { ...opts, maxInspectBytes: opts.maxInspectBytes ?? 1024 * 1024, rewriteCard: opts.rewriteCard ?? true };
    this.dryRun = opts.dryRun ?? false;
    this.forwarder = new Forwarder(opts.target, { timeoutMs: opts.upstreamTimeoutMs ?? 30_000 });
    this.profile = new ProfileTracker(this.forwarder, opts.profile ?? 'auto', opts.extensionUri);
    this.fixedClientKey = opts.clientKey !== undefined ? clientKeySource(opts.clientKey) : undefined;
    this.server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
      this.handle(req, res).catch((err) => this.failSafe(res, err));
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // A malformed request line must never take the process down.
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      else socket.destroy();
    });
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
    const decision = decider ? decider.decide({ request, profile, extensionUri }) : PASS_THROUGH;

    const outcome: Outcome = { source: 'dealer', notes: [] };
    let terminal = decision.terminal;
    let plan = decision.plan;
    if (this.dryRun) {
      terminal = undefined;
      plan = PASS_THROUGH.plan;
    }
    const isCard = this.opts.rewriteCard && request.httpMethod === 'GET' && isAgentCardPath(request.path);
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
      // While draining, a keep-alive connection is let go as soon as its last reply is out,
      // instead of holding close() open until the drain timeout.
      if (this.closing) setImmediate(() => this.server.closeIdleConnections());
    }
    this.record(request, decider, decision, outcome, res, startedAt, performance.now() - t0, !res.writableFinished, inForce);
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
          if (plan.envelope) {
            const changed = applyJsonPlan(action.envelope, { ...plan, patches: [] }, this.profile.profile, outcome.notes);
            bodyBytes = Buffer.from(JSON.stringify(changed));
          }
        }
        const headers: Record<string, string | number> = { ...action.headers, [RULE_HEADER]: ruleId };
        if (!('content-length' in headers)) headers['content-length'] = bodyBytes.length;
        outcome.status = action.status;
        await this.sendBytes(res, action.status, headers, bodyBytes, plan, buyer);
        return;
      }
      case 'reset':
        outcome.status = 0;
        outcome.lost = 'reset';
        // Drop any unread request bytes first so the RST is not preceded by a graceful close.
        req.socket.resetAndDestroy();
        return;
      case 'hang':
        outcome.status = 0;
        outcome.lost = 'hang';
        try {
          await sleep(action.maxMs, undefined, { signal: buyer.signal });
        } catch {
          return; // the buyer gave up first
        }
        req.socket.destroy();
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
            res.socket?.end();
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
    const up = await this.callDealer(res, request, forwardBody, buyer.signal, outcome, isCard);
    if (!up) return;
    outcome.status = up.statusCode;
    const headers = endToEndHeaders(up.headers);
    const contentType = String(headers['content-type'] ?? '');

    const wantsJson = isCard || plan.patches.length > 0 || plan.envelope !== undefined;
    if (wantsJson && contentType.includes('json')) {
      const raw = Buffer.concat(await collect(up.body as AsyncIterable<Buffer>));
      let bytes = raw;
      try {
        let json = JSON.parse(raw.toString('utf8')) as unknown;
        if (isCard && json && typeof json === 'object' && !Array.isArray(json)) {
          this.profile.observeCard(json);
          json = rewriteAgentCard(json as Record<string, unknown>, `http://${req.headers.host ?? 'localhost'}`, this.forwarder.basePath);
        }
        json = applyJsonPlan(json, plan, this.profile.profile, outcome.notes);
        noteError(outcome, json);
        if (!isCard && request.kind === 'jsonrpc' && !outcome.error) outcome.body = readRpcReply(json).kind;
        bytes = Buffer.from(JSON.stringify(json));
      } catch {
        outcome.notes.push('reply not changed: the dealer response is not valid JSON');
        if (request.kind === 'jsonrpc') outcome.body = 'malformed_json';
      }
      delete headers['content-length'];
      delete headers['content-encoding'];
      headers['content-length'] = String(bytes.length);
      await this.sendBytes(res, up.statusCode, headers, bytes, plan, buyer);
      return;
    }
    if (wantsJson) outcome.notes.push(`reply not changed: content-type "${contentType}" is not JSON`);

    let stream: Readable = up.body;
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
            const headers = endToEndHeaders(head.headers);
            const ct = headers['content-type'];
            // A JSON reply may be the dealer's own error, which the journal names.
            watch = new DealerReplyWatch(head.statusCode, typeof ct === 'string' ? ct : '', request.kind === 'jsonrpc');
            res.writeHead(head.statusCode, headers);
            if (typeof ct === 'string' && ct.startsWith('text/event-stream')) res.flushHeaders();
          },
          onData: (chunk) => {
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
    if (identity) delete headers['accept-encoding']; // the card is rewritten, so ask for plain bytes
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
    const bytes = Buffer.from(JSON.stringify(envelope));
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
  ): void {
    if (this.observers.length === 0) return;
    readDealerJson(outcome, request.kind === 'jsonrpc');
    const source = this.clientKeySourceFor(decider);
    const entry = buildJournalEntry(request, decision, outcome, {
      startedAt,
      durationMs,
      client: this.clientKeys.clientOf(source, request.headers, request.clientIp),
      clientKey: source.name,
      status: aborted ? 0 : (outcome.status ?? res.statusCode),
      aborted,
      dryRun: this.dryRun,
      ...inForce,
    });
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
    const bytes = Buffer.from(JSON.stringify(buildUpstreamUnreachable(this.profile.profile, null, 'internal proxy failure')));
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
