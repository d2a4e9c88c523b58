/**
 * `aap-chaos replay --diff FILE --target URL`: sends each recorded request to the live dealer
 * and lists, per exchange, the fields whose values differ (JSON Pointer, recorded and live),
 * looking past volatile fields (ids, timestamps) and `--ignore` pointers. Drift is any
 * difference, or a live request that failed.
 */
import { request as httpRequest } from 'undici';
import { AGENT_CARD_PATH, findAapExtension, rewriteAgentCard } from '../protocol/agent-card.js';
import { displayUrl } from '../common/display-url.js';
import { originFormPath } from '../http/request-target.js';
import { A2A_VERSION } from '../protocol/codes.js';
import { scrubReply } from '../protocol/personal-data.js';
import { repliesWithStream, resendBody } from '../protocol/request-body.js';
import type { RecordedReply } from '../recording/format.js';
import { readRecording, type RecordedExchange } from '../recording/reader.js';
import { splitSseEvents } from '../recording/sse-events.js';
import { jsonDifferences, type Difference } from './json-diff.js';

export interface DriftOptions {
  file: string;
  target: string;
  /** Pointers into each reply body (or SSE event payload) whose differences do not count. */
  ignore?: string[];
  /** How long one live request may take (default 30 s). */
  timeoutMs?: number;
}

export interface ExchangeDrift {
  /** 0 for the agent card, else the exchange's number in the recording. */
  exchange: number;
  /** `file:line` of the recorded exchange. */
  at: string;
  method: string;
  skill?: string;
  verdict: 'same' | 'drift' | 'failed';
  differences: Difference[];
  /** Why the live request failed. */
  error?: string;
}

export interface DriftResult {
  file: string;
  /** --target as shown: without credentials. */
  target: string;
  drift: boolean;
  exchanges: ExchangeDrift[];
}

/** A live reply read whole, bounded like a recorded one. */
const MAX_LIVE_BYTES = 16 * 1024 * 1024;
/** Where two cards are pointed, so that their interface URLs compare equal. */
const NEUTRAL_ORIGIN = 'http://dealer.invalid';

/**
 * Where a recorded request goes: --target's origin, its base path, and the recorded path as the
 * proxy's request-target rule leaves it. The reader refused any other path already; the origin is
 * checked again here, before every request, so no recording can point the diff at another host.
 */
export function liveUrl(target: string, path: string): URL {
  const base = new URL(target);
  const checked = originFormPath(path);
  if (!checked.ok || checked.path !== path) throw new Error(`${JSON.stringify(path.slice(0, 100))} is not an origin-form path`);
  const url = new URL(base.origin + base.pathname.replace(/\/+$/, '') + checked.path);
  if (url.origin !== base.origin) throw new Error(`${JSON.stringify(path.slice(0, 100))} would leave ${base.origin}`);
  return url;
}

async function readLive(
  target: string,
  path: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; chunks: Buffer[] }> {
  const res = await httpRequest(liveUrl(target, path), {
    ...init,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  } as Parameters<typeof httpRequest>[1]);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if ((size += chunk.length) > MAX_LIVE_BYTES) {
      res.body.destroy();
      throw new Error(`the reply is larger than ${MAX_LIVE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return { status: res.statusCode, headers: res.headers, chunks };
}

/** What of a reply is compared: the JSON body, the SSE events' payloads, or the text. */
function comparable(reply: Pick<RecordedReply, 'body' | 'text' | 'events' | 'base64'>): { body?: unknown; events?: unknown[] } {
  if (reply.events) return { events: reply.events.map((e) => (e.data !== undefined ? e.data : e.text)) };
  if (reply.body !== undefined) return { body: reply.body };
  return { body: reply.text ?? reply.base64 ?? null };
}

/**
 * What of a live reply is compared, scrubbed as the recorder scrubbed the recorded one (secret
 * names dropped, contacts pseudonymized, credentials masked): else every e-mail address or phone
 * number a dealer sends would read as drift.
 */
function liveComparable(headers: Record<string, string | string[] | undefined>, chunks: Buffer[]): { body?: unknown; events?: unknown[] } {
  const contentType = String(headers['content-type'] ?? '');
  const scrub = (value: unknown) => scrubReply(value, NOTHING_REPLACED);
  if (contentType.startsWith('text/event-stream'))
    return {
      events: comparable({
        events: splitSseEvents(
          chunks,
          chunks.map(() => 0),
        ),
      }).events!.map(scrub),
    };
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { body: scrub(JSON.parse(text) as unknown) };
  } catch {
    return { body: scrub(text) };
  }
}

const NOTHING_REPLACED = new Map<string, string>();

function compare(recorded: RecordedReply, status: number, live: { body?: unknown; events?: unknown[] }, ignore: string[]): Difference[] {
  const differences: Difference[] = [];
  if (recorded.status !== status) differences.push({ pointer: '/status', recorded: recorded.status, live: status });
  const was = comparable(recorded);
  if (was.events && live.events) {
    const n = Math.max(was.events.length, live.events.length);
    for (let i = 0; i < n; i++) {
      if (i >= was.events.length) differences.push({ pointer: `/events/${i}`, live: live.events[i] });
      else if (i >= live.events.length) differences.push({ pointer: `/events/${i}`, recorded: was.events[i] });
      else differences.push(...jsonDifferences(was.events[i], live.events[i], ignore, `/events/${i}`));
    }
  } else if (was.events || live.events)
    differences.push({ pointer: '/body', recorded: was.events ? 'an SSE stream' : 'a whole body', live: live.events ? 'an SSE stream' : 'a whole body' });
  else differences.push(...jsonDifferences(was.body, live.body, ignore, '/body'));
  return differences;
}

async function driftOfExchange(
  e: RecordedExchange,
  opts: Required<Pick<DriftOptions, 'target' | 'file' | 'timeoutMs'>> & { ignore: string[]; extensionUri?: string },
): Promise<ExchangeDrift> {
  const { request } = e;
  const base: Omit<ExchangeDrift, 'verdict' | 'differences'> = {
    exchange: e.number,
    at: `${opts.file}:${e.line}`,
    method: request.method,
    ...(request.skill ? { skill: request.skill } : {}),
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: repliesWithStream(request.method) ? 'text/event-stream' : 'application/json',
    'a2a-version': A2A_VERSION,
  };
  if (opts.extensionUri) headers['a2a-extensions'] = opts.extensionUri;
  try {
    const live = await readLive(opts.target, request.path, { method: 'POST', headers, body: JSON.stringify(resendBody(request)) }, opts.timeoutMs);
    const differences = compare(e.reply, live.status, liveComparable(live.headers, live.chunks), opts.ignore);
    return { ...base, verdict: differences.length ? 'drift' : 'same', differences };
  } catch (err) {
    return { ...base, verdict: 'failed', differences: [], error: (err as { code?: string }).code ?? (err as Error).message };
  }
}

async function driftOfCard(card: Record<string, unknown>, opts: { file: string; target: string; timeoutMs: number; ignore: string[] }): Promise<ExchangeDrift> {
  const base = { exchange: 0, at: opts.file, method: `GET ${AGENT_CARD_PATH}` };
  try {
    const live = await readLive(opts.target, AGENT_CARD_PATH, { method: 'GET', headers: { accept: 'application/json' } }, opts.timeoutMs);
    const body = JSON.parse(Buffer.concat(live.chunks).toString('utf8')) as unknown;
    const liveCard = body && typeof body === 'object' && !Array.isArray(body) ? rewriteAgentCard(body as Record<string, unknown>, NEUTRAL_ORIGIN) : body;
    const differences = jsonDifferences(rewriteAgentCard(card, NEUTRAL_ORIGIN), liveCard, [], '/card');
    if (live.status !== 200) differences.unshift({ pointer: '/status', recorded: 200, live: live.status });
    return { ...base, verdict: differences.length ? 'drift' : 'same', differences };
  } catch (err) {
    return { ...base, verdict: 'failed', differences: [], error: (err as { code?: string }).code ?? (err as Error).message };
  }
}

/** Throws RecordingReadError for a recording that cannot be read. */
export async function diffRecording(opts: DriftOptions): Promise<DriftResult> {
  const recording = await readRecording(opts.file);
  const ctx = {
    file: opts.file,
    target: opts.target,
    timeoutMs: opts.timeoutMs ?? 30_000,
    ignore: opts.ignore ?? [],
    extensionUri: findAapExtension(recording.card)?.uri,
  };
  const exchanges: ExchangeDrift[] = [];
  if (recording.card) exchanges.push(await driftOfCard(recording.card, ctx));
  // One at a time, in recorded order: a dealer's later answers may depend on earlier requests.
  for (const e of recording.exchanges) exchanges.push(await driftOfExchange(e, ctx));
  return { file: opts.file, target: displayUrl(opts.target), drift: exchanges.some((x) => x.verdict !== 'same'), exchanges };
}
