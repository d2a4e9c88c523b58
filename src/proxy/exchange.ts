/**
 * One request and its reply, as the request path carries them: the buyer's request and the
 * response to it, the classified request and its body, whether the buyer is still there, the
 * engine's decision, and the outcome the journal line is built from. The few things every reply
 * path does (call the dealer, answer 502 when it cannot, send a whole body) live here once.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ClassifiedRequest } from '../protocol/classify.js';
import type { Profile } from '../protocol/codes.js';
import { buildUpstreamUnreachable } from '../protocol/envelopes.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import { nextArrival } from '../protocol/ids.js';
import { CONDITIONAL_REQUEST_HEADERS } from '../protocol/agent-card.js';
import type { TerminalAction } from '../effects/effect.js';
import type { CardHistory } from '../effects/card.js';
import type { CardSigningKey } from '../protocol/card-signature.js';
import type { ReplyPlan, StepContext } from '../effects/reply-plan.js';
import { PASS_THROUGH, type Decider, type Decision } from '../engine/decision.js';
import type { RequestObserver } from '../journal/entry.js';
import type { Recorder, ReplyTap } from '../recording/recorder.js';
import type { Forwarder, UpstreamResponse } from './forward.js';
import { describeUpstreamError } from './forward.js';
import { endToEndHeaders } from './hop-by-hop.js';
import type { ProfileTracker } from './profile.js';
import type { BodyRefusal, RequestBody } from './body.js';
import { bodyTooLargeIn, sendBodyTooLarge } from './body-limit.js';
import { BuyerWatch, pipeToBuyer } from './buyer-watch.js';
import type { Outcome } from './reply-outcome.js';
import { DealerReplyCopy, isCheckedRequest } from './dealer-check.js';
import { SOURCE_HEADER } from './marker-headers.js';
import { wholeBodySteps } from './reply-steps.js';
import type { ExchangeTrace, ExchangeTracer } from './trace-hooks.js';
import { breakConnection } from '../http/reply-connection.js';

/** What a request needs of the proxy it arrived at. */
export interface ProxyContext {
  readonly forwarder: Forwarder;
  readonly profile: ProfileTracker;
  readonly cardHistory: CardHistory;
  /** Signs every card served (--card-signing-key). */
  readonly cardSigningKey: CardSigningKey | undefined;
  /** Told when a dealer's card signatures were removed (the proxy says so once). */
  cardSignaturesRemoved(): void;
  /** Read once per request: a swap mid-request does not change the engine it started with. */
  readonly decider: Decider | undefined;
  readonly dryRun: boolean;
  /** Who pulled the safety lever, while it is pulled (each journal line then says so). */
  readonly haltedBy?: string;
  readonly observers: readonly RequestObserver[];
  readonly settings: RequestSettings;
  /** With --record: keeps the dealer's replies (undefined costs the request path nothing). */
  readonly recorder: Recorder | undefined;
  /** Set only with --otlp-endpoint: without it no tracing code runs per request. */
  readonly tracer: ExchangeTracer | undefined;
  /** Who the journal line is attributed to, and how that was derived. */
  clientOf(decider: Decider | undefined, request: ClassifiedRequest): { client: string; clientKey: string };
  /** Called when a reply is out, so a closing server lets the connection go at once. */
  replyDone(): void;
}

export interface RequestSettings {
  maxInspectBytes: number;
  maxBodyBytes: number;
  rewriteCard: boolean;
  checkDealer: boolean;
  sessionHeader: string;
  /** The replica id each journal line carries (fleet mode). */
  replica?: string;
  /** The dealer's name when one proxy fronts several; journaled and matched by `match: { dealer }`. */
  dealer?: string;
  /** The path the buyer's URLs start with before the dealer's own (`/d/NAME`), added back when the card is rewritten; '' for one dealer. */
  basePrefix: string;
  /** --redact-header names: their values are looked for in a dealer's error before it is journaled. */
  secretHeaders: readonly string[];
}

export class Exchange {
  readonly startedAt = Date.now();
  /** Orders this request's journal id after every request that arrived before it (src/protocol/ids.ts). */
  readonly arrival = nextArrival();
  readonly t0 = performance.now();
  readonly outcome: Outcome;
  /** Set by the request path once the body is read. */
  request!: ClassifiedRequest;
  body!: RequestBody;
  /** The buyer leaving cancels everything still pending for it: the dealer call, a delay, a hang. */
  buyer!: BuyerWatch;
  decider: Decider | undefined;
  decision: Decision = PASS_THROUGH;
  session: string | undefined;
  inForce!: { profile: Profile; extensionUri: string };
  /** What is carried out: the decision's, or nothing under dry run. */
  terminal: { ruleId: string; action: TerminalAction } | undefined;
  plan: ReplyPlan = PASS_THROUGH.plan;
  /** A GET of the agent card the proxy reads (to rewrite its URLs or to fault it). */
  isCard = false;
  /** Set when the proxy refused (or lost) the request while reading its body. */
  refusal: BodyRefusal | undefined;
  /** The exchange's spans, when a tracer is configured. */
  readonly trace: ExchangeTrace | undefined;

  constructor(
    readonly proxy: ProxyContext,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {
    this.outcome = { source: 'dealer', notes: [] };
    this.trace = proxy.tracer?.begin(req.headers);
  }

  /** What steps read of the reply as it goes out. */
  stepContext(): StepContext {
    return { profile: this.proxy.profile.profile, id: this.request.id };
  }

  /** Calls the dealer for a reply that effects will look at; answers 502 itself when that fails. */
  async callDealer(identity = false): Promise<UpstreamResponse | undefined> {
    const { forwarder } = this.proxy;
    const signal = this.buyer.signal;
    const upstreamStart = performance.now();
    const headers = this.upstreamHeaders();
    if (identity) {
      // The card is rewritten: ask for plain bytes, and for all of them (conditional requests are answered here).
      delete headers['accept-encoding'];
      for (const name of CONDITIONAL_REQUEST_HEADERS) delete headers[name];
    }
    try {
      const up = await forwarder.request({
        path: forwarder.upstreamPath(this.request.url),
        method: this.request.httpMethod,
        headers,
        body: this.body.forward,
        signal,
      });
      this.outcome.upstreamStatus = up.statusCode;
      this.outcome.upstreamMs = performance.now() - upstreamStart;
      return up;
    } catch (err) {
      if (!signal.aborted) this.answerUnreachable(err);
      return undefined;
    }
  }

  upstreamHeaders(): Record<string, string | string[]> {
    const { request } = this;
    const headers = endToEndHeaders(request.headers);
    const ip = request.clientIp;
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${prior}, ${ip}` : ip;
    // Overwritten, as an edge proxy does (Envoy with use_remote_address sets X-Forwarded-Proto
    // itself): the buyer is not a proxy the dealer trusts, and a dealer that builds links from
    // X-Forwarded-Host must see the name the buyer really connected to, not one it made up.
    if (request.headers.host) headers['x-forwarded-host'] = request.headers.host;
    else delete headers['x-forwarded-host'];
    headers['x-forwarded-proto'] = 'http';
    if (Buffer.isBuffer(request.body)) delete headers['content-length'];
    // Called once per dealer call: the client span starts here and its context goes to the dealer.
    this.trace?.upstream(headers);
    return headers;
  }

  /** With --record, a tap that keeps the dealer's reply to this request as it streams by. */
  tapFor(status: number, headers: Record<string, string | string[]>): ReplyTap | undefined {
    return this.proxy.recorder?.tap(this.request, status, headers, this.t0);
  }

  /** With --check-dealer, a bounded copy of a reply the conformance rules look at. */
  dealerCopyFor(status: number, headers: IncomingHttpHeaders): DealerReplyCopy | undefined {
    const { settings } = this.proxy;
    return settings.checkDealer && isCheckedRequest(this.request) ? new DealerReplyCopy(status, headers, settings.maxInspectBytes) : undefined;
  }

  /** What the journal says of a request refused (or lost) while its body was read. */
  noteRefusal(refusal: BodyRefusal): void {
    const { outcome } = this;
    this.refusal = refusal;
    outcome.source = 'proxy';
    outcome.status = refusal.status;
    outcome.error = refusal.envelope?.error;
    outcome.notes.push(refusal.note);
  }

  /** The dealer could not be reached: a -32603 envelope on HTTP 502, marked as the proxy's own. */
  answerUnreachable(err: unknown): void {
    const { res, outcome } = this;
    const tooLarge = bodyTooLargeIn(err);
    if (tooLarge && !res.headersSent) {
      // Not the dealer's failure: the buyer's chunked body outgrew --max-body on the way.
      this.noteRefusal({ status: 413, note: tooLarge.message, envelope: sendBodyTooLarge(res, tooLarge) });
      this.refusal = undefined; // answered through `res`, which says whether it got out
      return;
    }
    const { cause } = describeUpstreamError(err, this.proxy.forwarder.origin);
    const envelope = buildUpstreamUnreachable(this.proxy.profile.profile, this.request.id, cause);
    const bytes = Buffer.from(stringifyJsonRpc(envelope));
    outcome.source = 'proxy';
    outcome.status = 502;
    outcome.error = envelope.error;
    outcome.notes.push(cause);
    if (res.headersSent) {
      outcome.lost = 'truncated';
      breakConnection(res);
      return;
    }
    res.writeHead(502, { 'content-type': 'application/json', 'content-length': bytes.length, [SOURCE_HEADER]: 'proxy' });
    res.end(bytes);
  }

  /**
   * Sends a complete body, through the plan's steps that act on whole bodies (a bandwidth cap).
   * Without such steps (the injected-error path) the body is written at once and nothing is awaited.
   */
  sendWhole(status: number, headers: Record<string, string | number | string[]>, bytes: Buffer): Promise<void> | void {
    const { res } = this;
    const steps = wholeBodySteps(this.plan.stream);
    res.writeHead(status, headers);
    if (steps.length === 0) {
      res.end(bytes);
      return;
    }
    res.flushHeaders();
    const ctx = this.stepContext();
    let stream: Readable = Readable.from([bytes]);
    for (const step of steps) stream = stream.pipe(step.transform(ctx));
    return pipeToBuyer(stream, res, this.buyer.signal);
  }
}
