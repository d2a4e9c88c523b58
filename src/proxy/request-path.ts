/**
 * The request path, top to bottom: read and classify the request once → decide → pass through
 * untouched, or forward with the plan's changes, or answer instead of the dealer → journal.
 * A reader can follow one request through this file (the untouched reply's hot path is
 * pass-through.ts); what each step does to a reply belongs to the effect that asked for it
 * (src/effects/), carried out generically by reply-steps.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { classifyRequest } from '../protocol/classify.js';
import { rpcIdFromText, stringifyJsonRpc, topLevelIdText, withExactId } from '../protocol/rpc-id.js';
import { cacheAsHostDependent, isAgentCardPath, rewriteAgentCard, servedCard } from '../protocol/agent-card.js';
import { leadSubmitStatus, readRpcReply, readRpcReplyBytes } from '../protocol/reply-kind.js';
import type { TerminalAction } from '../effects/effect.js';
import { baseCard, cardReplacement, patchCard } from '../effects/card.js';
import { forgeCardSignature } from '../effects/card-signature.js';
import { settleCardSignatures, signaturesOf } from '../protocol/card-signature.js';
import { leavesBytesAlone } from '../effects/reply-plan.js';
import { PASS_THROUGH } from '../engine/decision.js';
import { buildJournalEntry, mayTakeFactsLater } from '../journal/build-entry.js';
import { boundJournalEntry } from '../common/bounds.js';
import { endToEndHeaders } from './hop-by-hop.js';
import { collect, ID_SCAN_BYTES, readBodyWithinLimits, readPrefix } from './body.js';
import { endConnection, resetConnection } from './connection-faults.js';
import { sessionOf } from './session-header.js';
import { BuyerWatch, pipeToBuyer } from './buyer-watch.js';
import { DealerReplyWatch } from './dealer-reply-watch.js';
import { passThrough } from './pass-through.js';
import { noteBroken, noteError, readDealerJson } from './reply-outcome.js';
import { dealerViolations } from './dealer-check.js';
import { RULE_HEADER } from './marker-headers.js';
import { changesLength, injectedSteps, runJsonSteps, runStreamSteps } from './reply-steps.js';
import { Exchange, type ProxyContext } from './exchange.js';
import { originFormPath } from '../http/request-target.js';
import { sendRequestRefused } from './body-limit.js';
import { breakConnection } from '../http/reply-connection.js';

export async function handleRequest(proxy: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const x = new Exchange(proxy, req, res);
  if (!(await readAndDecide(x))) {
    record(x);
    return;
  }
  try {
    try {
      if (x.plan.delayMs > 0) await sleep(x.plan.delayMs, undefined, { signal: x.buyer.signal });
      if (x.terminal) await ANSWERS[x.terminal.action.type](x, x.terminal.action as never);
      // A delay changes when the reply comes, not its bytes: they still go straight through.
      else if (!x.isCard && leavesBytesAlone(x.plan)) await passThrough(x);
      else await forward(x);
    } catch (err) {
      if (!x.buyer.gone) throw err;
    }
  } finally {
    x.decision.release();
    // Answered before the body was read through (the dealer replied early, or a fault did):
    // the rest of it would block the connection, so it closes once this reply is out.
    if (!req.complete) void endConnection(res);
    proxy.replyDone();
  }
  record(x);
}

/** False when the proxy refused the request (or lost it) while reading its body: nothing to decide. */
async function readAndDecide(x: Exchange): Promise<boolean> {
  const { proxy, req } = x;
  const body = (x.body = await readBodyWithinLimits(req, x.res, proxy.settings));
  // The path the dealer gets, and the one rules and the journal see.
  const target = originFormPath(req.url ?? '/');
  x.request = classifyRequest({
    method: req.method ?? 'GET',
    url: target.ok ? target.path : (req.url ?? '/'),
    headers: req.headers,
    clientIp: req.socket.remoteAddress ?? 'unknown',
    body: x.body.buffer,
    oversized: x.body.oversized,
  });
  const { profile, extensionUri } = proxy.profile;
  x.inForce = { profile, extensionUri };
  x.decider = proxy.decider;
  x.session = sessionOf(x.request.headers, proxy.settings.sessionHeader, x.outcome.notes);
  if (body.refusal) {
    x.noteRefusal(body.refusal);
    return false;
  }
  if (!target.ok) {
    x.noteRefusal({ status: 400, note: target.message, envelope: sendRequestRefused(x.res, 400, target.message) });
    return false;
  }
  const decided = x.decider ? x.decider.decide({ request: x.request, profile, extensionUri, session: x.session, dealer: proxy.settings.dealer }) : PASS_THROUGH;
  // Only a shared state store makes the decision wait; the memory store decides synchronously.
  x.decision = decided instanceof Promise ? await decided : decided;
  if (!proxy.dryRun) {
    x.terminal = x.decision.terminal;
    x.plan = x.decision.plan;
  }
  x.isCard = (proxy.settings.rewriteCard || x.plan.card !== undefined) && x.request.httpMethod === 'GET' && isAgentCardPath(x.request.path);
  x.buyer = new BuyerWatch(x.res);
  return true;
}

/** Forwards to the dealer for a reply that the plan (or the card rewrite) changes. */
async function forward(x: Exchange): Promise<void> {
  const { proxy, request, req, res, outcome, plan, isCard } = x;
  const replacement = plan.card && cardReplacement(plan.card);
  if (replacement) {
    outcome.source = 'injected';
    outcome.status = replacement.status;
    await x.sendWhole(replacement.status, { ...replacement.headers, 'content-length': replacement.body.length }, replacement.body);
    return;
  }
  const up = await x.callDealer(isCard);
  if (!up) return;
  outcome.status = up.statusCode;
  const copy = (outcome.dealerCopy = x.dealerCopyFor(up.statusCode, up.headers));
  const headers = endToEndHeaders(up.headers);
  const contentType = String(headers['content-type'] ?? '');
  // The dealer's own reply is what is recorded, before any effect changes it.
  const tap = isCard ? undefined : x.tapFor(up.statusCode, headers);

  const wantsJson = isCard || plan.json.length > 0;
  if (wantsJson && contentType.includes('json')) {
    const raw = Buffer.concat(await collect(up.body as AsyncIterable<Buffer>));
    copy?.push(raw);
    tap?.push(raw);
    let bytes: Buffer = raw;
    try {
      let json = JSON.parse(raw.toString('utf8')) as unknown;
      if (isCard && isCardObject(json)) json = await cardToServe(x, json, headers);
      json = withExactId(runJsonSteps(json, plan.json, x.stepContext(), outcome.notes), raw);
      noteError(outcome, json);
      if (request.skill === 'lead.submit') outcome.leadStatus = leadSubmitStatus(json);
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
    await x.sendWhole(status, headers, bytes);
    tap?.end();
    return;
  }
  if (wantsJson) outcome.notes.push(`reply not changed: content-type "${contentType}" is not JSON`);

  let stream: Readable = up.body;
  if (copy) stream.on('data', (chunk: Buffer) => copy.push(chunk));
  if (tap) stream.on('data', (chunk: Buffer) => tap.push(chunk));
  stream = runStreamSteps(stream, plan.stream, contentType, x.stepContext(), outcome.notes);
  if (changesLength(plan.stream)) delete headers['content-length']; // events may be cut or replaced
  res.writeHead(up.statusCode, headers);
  res.flushHeaders();
  const watch = isCard ? undefined : new DealerReplyWatch(up.statusCode, contentType, request.kind === 'jsonrpc', request.skill === 'lead.submit');
  const piped = pipeToBuyer(stream, res, x.buyer.signal, (err) => noteBroken(outcome, err, proxy.forwarder.origin));
  // Attached after the pipe, so both see every chunk (what the buyer got, faults included).
  if (watch) stream.on('data', (chunk: Buffer) => watch.push(chunk));
  await piped;
  watch?.finish(outcome);
  // A reply cut short (the dealer or the buyer went away) is not what the dealer answers.
  if (!outcome.lost) tap?.end();
}

const isCardObject = (json: unknown): json is Record<string, unknown> => !!json && typeof json === 'object' && !Array.isArray(json);

/**
 * The card the buyer gets: the dealer's (or a stale one), patched, its interface URLs pointed at
 * the proxy, the signatures those changes broke removed (or the card signed again with the
 * proxy's key), then a signature fault when the plan has one.
 */
async function cardToServe(x: Exchange, dealerCard: Record<string, unknown>, headers: Record<string, string | string[]>): Promise<unknown> {
  const { proxy, plan, req, outcome } = x;
  proxy.profile.observeCard(dealerCard);
  proxy.cardHistory.record(dealerCard);
  // The card whose signatures the served one carries: the dealer's, or the stale copy.
  const base = plan.card ? baseCard(dealerCard, plan.card, proxy.cardHistory, outcome.notes) : dealerCard;
  const patched = plan.card ? patchCard(base, plan.card, outcome.notes) : base;
  if (!isCardObject(patched)) return patched;
  let card = patched;
  // After a card fault too: a changed card must not send buyers around the proxy.
  if (proxy.settings.rewriteCard) {
    const origin = `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${proxy.settings.basePrefix}`;
    card = rewriteAgentCard(card, origin, proxy.forwarder.basePath);
    cacheAsHostDependent(headers);
  }
  const settled = await settleCardSignatures(base, card, proxy.cardSigningKey, outcome.notes);
  outcome.cardSignatures = settled.outcome;
  if (settled.outcome === 'removed') proxy.cardSignaturesRemoved();
  const fault = plan.card?.signature;
  if (!fault) return settled.card;
  const forged = await forgeCardSignature(settled.card, fault, { key: proxy.cardSigningKey, originSignatures: signaturesOf(base) }, outcome.notes);
  if (forged === undefined) return settled.card;
  outcome.cardSignatures = fault;
  return forged;
}

type Answer<T extends TerminalAction['type']> = (x: Exchange, action: Extract<TerminalAction, { type: T }>) => Promise<void>;

/** A terminal effect answers instead of the dealer, with one of the proxy's transport primitives. */
const ANSWERS: { [T in TerminalAction['type']]: Answer<T> } = {
  reply: answerWithReply,
  reset: async (x) => {
    injected(x, 0).lost = 'reset';
    await resetConnection(x.res);
  },
  hang: async (x, action) => {
    injected(x, 0).lost = 'hang';
    try {
      await sleep(action.maxMs, undefined, { signal: x.buyer.signal });
    } catch {
      return; // the buyer gave up first
    }
    breakConnection(x.res); // once earlier pipelined replies are out
  },
  truncate: truncateDealerReply,
};

function injected(x: Exchange, status?: number): Exchange['outcome'] {
  x.outcome.source = 'injected';
  if (status !== undefined) x.outcome.status = status;
  return x.outcome;
}

async function answerWithReply(x: Exchange, action: Extract<TerminalAction, { type: 'reply' }>): Promise<void> {
  const { request, outcome } = x;
  injected(x);
  let bodyBytes = action.body;
  if (action.bodyKind) outcome.body = action.bodyKind;
  else if (!action.envelope && request.kind === 'jsonrpc') {
    // An `http:` reply: what the buyer can make of its body (an HTML 502 is no answer at all).
    const read = String(action.headers?.['content-type'] ?? '').includes('json')
      ? readRpcReplyBytes(action.body)
      : { kind: 'not_jsonrpc' as const, error: undefined };
    if (read.error) outcome.error = read.error;
    else outcome.body = read.kind;
  }
  if (action.envelope) {
    outcome.error = action.envelope.error;
    let envelope: unknown = action.envelope;
    // Too large to classify: the id is looked for in the body's first bytes only (null if not there).
    if (request.kind === 'oversized')
      envelope = { ...action.envelope, id: rpcIdFromText(topLevelIdText(await readPrefix(x.body.forward, ID_SCAN_BYTES, x.buyer.signal))) };
    const steps = injectedSteps(x.plan.json);
    if (steps.length > 0) envelope = runJsonSteps(envelope, steps, x.stepContext(), outcome.notes);
    if (envelope !== action.envelope) bodyBytes = Buffer.from(stringifyJsonRpc(envelope));
  }
  // Built by assignment: a spread with a computed key showed in the injected-error path's profile.
  const headers: Record<string, string | number> = {};
  const given = action.headers;
  if (given) for (const name in given) headers[name] = given[name]!;
  headers[RULE_HEADER] = x.terminal!.ruleId;
  if (headers['content-length'] === undefined) headers['content-length'] = bodyBytes.length;
  // The unread rest of an oversized body must not be taken for the next request.
  if (request.kind === 'oversized') headers.connection = 'close';
  outcome.status = action.status;
  await x.sendWhole(action.status, headers, bodyBytes);
}

/** The dealer's real reply, cut after `bytes`: the connection closes mid-body. */
async function truncateDealerReply(x: Exchange, action: Extract<TerminalAction, { type: 'truncate' }>): Promise<void> {
  const { res, outcome } = x;
  injected(x);
  const up = await x.callDealer();
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
}

/** The journal line, once the reply is out (or the buyer gone). */
function record(x: Exchange): void {
  const { proxy, request, outcome, res } = x;
  if (proxy.observers.length === 0 && x.trace === undefined) return;
  // A refused request's reply (if any) went out on the socket, not through `res`. The reply is
  // whole when it was ended and the buyer did not leave first: `writableFinished` is no test of
  // that, since Node 24 sets it only once 'finish' is emitted, a tick after the last write.
  const aborted = x.refusal ? x.refusal.status === 0 : x.buyer.gone || !res.writableEnded;
  // A reply cut short still had the status line the buyer received (a stream it left after 200 and events is a 200).
  const status = aborted && !res.headersSent ? 0 : (outcome.status ?? res.statusCode);
  const durationMs = performance.now() - x.t0;
  readDealerJson(outcome, request.kind === 'jsonrpc', request.skill === 'lead.submit');
  const attribution = proxy.clientOf(x.decider, request);
  // The request facts (its hash, its schema problems) are taken only when a line is read, unless an observer reads them now.
  const body = x.body?.buffer;
  const factsFrom = mayTakeFactsLater(request.skill, body) && proxy.observers.every((o) => o.readsWholeEntry?.() === false) ? body : undefined;
  const entry = boundJournalEntry(
    buildJournalEntry(request, x.decision, outcome, {
      startedAt: x.startedAt,
      arrival: x.arrival,
      durationMs,
      client: attribution.client,
      clientKey: attribution.clientKey,
      status,
      aborted,
      dryRun: proxy.dryRun,
      profile: x.inForce.profile,
      extensionUri: x.inForce.extensionUri,
      session: x.session,
      replica: proxy.settings.replica,
      haltedBy: proxy.haltedBy,
      dealer: proxy.settings.dealer,
      secretHeaders: proxy.settings.secretHeaders,
      factsLater: factsFrom !== undefined,
    }),
  );
  // The reply is out: checking the dealer's copy now cannot change its bytes or its timing.
  if (outcome.dealerCopy && !aborted) entry.conformance = dealerViolations(request, outcome.dealerCopy, proxy.profile);
  x.trace?.end(entry, x.decision.applied);
  for (const o of proxy.observers) o.onRequestDone(entry, factsFrom);
}
