/**
 * A dealer that answers from a recording (`aap-chaos replay`, `--target replay:FILE`): the
 * recorded agent card, and for each JSON-RPC request the recorded reply it matches
 * (recording-index.ts), given again with the live ids (serve-recorded.ts). It stands where a
 * dealer stands, behind the proxy, so every scenario effect applies to it as to a live dealer.
 * A request with no recorded match is answered by `onMiss`: an error naming the nearest recorded
 * request, the nearest recorded reply, or the live `passTarget` (and the exchange is recorded).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { text as readAllText } from 'node:stream/consumers';
import { classifyRequest, type ClassifiedRequest } from '../protocol/classify.js';
import { findAapExtension, isAgentCardPath, rewriteAgentCard, AGENT_CARD_PATH } from '../protocol/agent-card.js';
import { buildA2aError, buildReplayMiss, buildUpstreamUnreachable } from '../protocol/envelopes.js';
import { idsToEcho } from '../protocol/echo-ids.js';
import type { Profile } from '../protocol/codes.js';
import { readRecording, type Recording } from '../recording/reader.js';
import { Recorder } from '../recording/recorder.js';
import { readBody, sendCard, sendJson } from '../mock/http-io.js';
import type { ListenerTimeouts } from '../http/listener-limits.js';
import { serveDealer } from '../mock/server.js';
import { describeUpstreamError, Forwarder } from '../proxy/forward.js';
import { endToEndHeaders } from '../proxy/hop-by-hop.js';
import { liveKey, RecordingIndex, type MatchKey } from './recording-index.js';
import { serveRecorded } from './serve-recorded.js';

export type OnMiss = 'error' | 'pass' | 'nearest';

/** How a recording is replayed (`replay` in the library, flags of `aap-chaos replay`). */
export interface ReplaySettings {
  /** Divides the recorded gaps between SSE events (2 = twice as fast); default 1. */
  speed?: number;
  /** JSON Pointers into a request's DataPart data (or params) that matching ignores. */
  ignore?: string[];
  /** What a request with no recorded match gets; default error. */
  onMiss?: OnMiss;
  /** With onMiss pass: the live dealer unmatched requests go to (their exchanges are appended to the recording). */
  passTarget?: string;
}

export interface ReplayDealerOptions extends ReplaySettings {
  file: string;
  host?: string;
  port?: number;
  timeouts?: ListenerTimeouts;
  /** Where misses and the recorder's messages go. */
  log?: (line: string) => void;
  /** Response headers that are secrets (for the exchanges onMiss pass records). */
  secretHeaders?: readonly string[];
}

export interface RunningReplayDealer {
  url: string;
  recording: Recording;
  close(): Promise<void>;
}

/** A replay that cannot start: the message names the flag or the file:line. */
export class ReplayStartError extends Error {
  override name = 'ReplayStartError';
}

export async function startReplayDealer(opts: ReplayDealerOptions): Promise<RunningReplayDealer> {
  const onMiss = opts.onMiss ?? 'error';
  if (onMiss === 'pass' && !opts.passTarget)
    throw new ReplayStartError('--on-miss pass: needs --target URL, the dealer that unrecorded requests are forwarded to');
  const speed = opts.speed ?? 1;
  const ignore = opts.ignore ?? [];
  const log = opts.log ?? (() => {});
  // Spying (onMiss pass) may start a recording from nothing.
  const recording = onMiss === 'pass' && !existsSync(opts.file) ? { file: opts.file, card: undefined, exchanges: [] } : await readRecording(opts.file);
  const index = new RecordingIndex(recording.exchanges, ignore);
  const profile = (): Profile => findAapExtension(recording.card)?.profile ?? '1.3';

  let live: { forwarder: Forwarder; recorder: Recorder } | undefined;
  if (onMiss === 'pass') {
    const forwarder = new Forwarder(opts.passTarget!, { timeoutMs: 30_000 });
    const recorder = Recorder.open({
      file: opts.file,
      target: opts.passTarget!,
      log,
      secretHeaders: opts.secretHeaders,
      onRecorded: (line) => {
        // Matched from now on, like the exchanges read from the file.
        const exchange = { ...line, number: recording.exchanges.length + 1, line: 0 };
        recording.exchanges.push(exchange);
        index.add(exchange);
      },
    });
    live = { forwarder, recorder };
  }

  const miss = (request: ClassifiedRequest, body: Buffer, key: MatchKey, res: ServerResponse, startedAt: number): Promise<void> | void => {
    const what = `${key.method}${key.skill ? ` ${key.skill}` : ''} (hash ${key.hash})`;
    if (onMiss === 'pass') {
      log(`replay: no recorded reply for ${what}; forwarded to ${live!.forwarder.origin} and recorded`);
      return passOn(live!, request, body, res, startedAt, profile());
    }
    const nearest = index.nearest(key);
    if (onMiss === 'nearest' && nearest) {
      log(`replay: no recorded reply for ${what}; answered with the nearest, exchange ${nearest.exchange.number}`);
      return serveRecorded(res, nearest.exchange.reply, idsToEcho(request.id, request.body?.params), { startedAt, speed });
    }
    log(`replay: no recorded reply for ${what}; answered with an error`);
    const near = nearest && {
      exchange: nearest.exchange.number,
      method: nearest.exchange.request.method,
      skill: nearest.exchange.request.skill,
      differsAt: nearest.differsAt,
    };
    sendJson(res, 200, buildReplayMiss(profile(), request.id, { method: key.method, skill: key.skill, hash: key.hash, nearest: near }));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    if ((req.method === 'GET' || req.method === 'HEAD') && isAgentCardPath(path)) {
      if (!recording.card && live) recording.card = await fetchCard(live);
      if (!recording.card) return sendJson(res, 404, { error: `No agent card in the recording ${opts.file}.` });
      const host = req.headers.host ?? `127.0.0.1:${req.socket.localPort ?? 80}`;
      return sendCard(req, res, rewriteAgentCard(recording.card, `http://${host}`));
    }
    if (req.method !== 'POST')
      return sendJson(res, 405, { error: `A replayed dealer answers POST (JSON-RPC) and GET ${AGENT_CARD_PATH}.` }, { allow: 'GET, POST' });
    const read = await readBody(req);
    if (!read.ok) {
      if (read.reason === 'too-large')
        sendJson(res, 200, buildA2aError('INVALID_REQUEST', null, { message: 'Invalid request: the body exceeds 1 MiB.' }), { connection: 'close' });
      return;
    }
    const request = classifyRequest({ method: 'POST', url: req.url ?? '/', headers: req.headers, clientIp: req.socket.remoteAddress ?? '', body: read.body });
    if (request.kind !== 'jsonrpc') return sendJson(res, 200, buildA2aError(request.kind === 'not-json' ? 'PARSE_ERROR' : 'INVALID_REQUEST', request.id));
    const key = liveKey(request, ignore);
    const recorded = index.take(key);
    if (!recorded) return miss(request, read.body, key, res, startedAt);
    return serveRecorded(res, recorded.reply, idsToEcho(request.id, request.body?.params), { startedAt, speed });
  }

  const server = await serveDealer((req, res) => {
    handle(req, res).catch(() => {
      // A bug must never take the replay down or leak a stack.
      if (!res.headersSent) sendJson(res, 200, buildA2aError('INTERNAL_ERROR', null, { message: 'aap-chaos replay failed to answer this request.' }));
      else res.destroy();
    });
  }, opts);
  return {
    url: server.url,
    recording,
    close: async () => {
      await server.close();
      await live?.forwarder.destroy();
      await live?.recorder.close();
    },
  };
}

/** onMiss pass: the live dealer answers, its bytes stream to the buyer and into the recording. */
function passOn(
  live: { forwarder: Forwarder; recorder: Recorder },
  request: ClassifiedRequest,
  body: Buffer,
  res: ServerResponse,
  startedAt: number,
  profile: Profile,
): Promise<void> {
  const { forwarder, recorder } = live;
  const headers = endToEndHeaders(request.headers);
  delete headers['content-length'];
  return new Promise<void>((resolve) => {
    let tap: ReturnType<Recorder['tap']>;
    forwarder.dispatch(
      { path: forwarder.upstreamPath(request.url), method: 'POST', headers, body },
      (abort) => res.once('close', () => !res.writableFinished && abort()),
      {
        onHead: (head) => {
          const replyHeaders = endToEndHeaders(head.headers);
          tap = recorder.tap(request, head.statusCode, replyHeaders, startedAt);
          res.writeHead(head.statusCode, replyHeaders);
          res.flushHeaders();
        },
        onData: (chunk) => {
          tap?.push(chunk);
          return res.write(chunk);
        },
        onDrain: (resume) => res.once('drain', resume),
        onEnd: () => {
          res.end();
          tap?.end();
          resolve();
        },
        onError: (err) => {
          if (res.headersSent) res.destroy();
          else sendJson(res, 502, buildUpstreamUnreachable(profile, request.id, describeUpstreamError(err, forwarder.origin).cause));
          resolve();
        },
      },
    );
  });
}

/** onMiss pass with no card recorded: the live dealer's card, recorded as it is read. */
async function fetchCard(live: { forwarder: Forwarder; recorder: Recorder }): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await live.forwarder.request({
      path: live.forwarder.upstreamPath(AGENT_CARD_PATH),
      method: 'GET',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(5_000),
    });
    const text = await readAllText(res.body);
    const card = res.statusCode === 200 ? (JSON.parse(text) as unknown) : undefined;
    if (!card || typeof card !== 'object' || Array.isArray(card)) return undefined;
    live.recorder.card(card);
    return card as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
