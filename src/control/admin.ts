/**
 * The admin API: a separate HTTP listener that reads and steers a running instance. JSON in and
 * out; every error is `{ "error": { "message", "problems"? } }`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { sessionRoutes, sessionQuery } from './session-routes.js';
import type { ScenarioEngine } from '../engine/decision.js';
import type { ControlSurface, Route } from './surface.js';
import { ApiError, decodePathSegment, type Call } from '../http/routes.js';
import type { ReplyOutcome } from '../journal/outcome.js';
import type { ScenarioSource } from '../scenario/source.js';
import { listBuiltinScenarios } from '../scenario/builtin.js';
import { StateStoreError } from '../state/redis-store.js';
import { dashboardFileFor, serveDashboardFile } from '../dashboard/serve.js';
import { bearerTokenMatches, eventsAuthorization } from './auth.js';
import { adminRequestRefusal } from './admin-guard.js';
import { answerClientError, listenerOptions, type ListenerTimeouts } from '../http/listener-limits.js';
import { createListener, schemeOf, type TlsPair } from '../proxy/tls.js';
import { actorOf, changeOf, stagingRefusal, stagingRoutes, switchRuleOrRefuse } from '../staging/routes.js';

export interface AdminServerOptions {
  host: string;
  port: number;
  token?: string;
  timeouts?: ListenerTimeouts;
  /** Serve the admin API over HTTPS (--admin-tls-cert, --admin-tls-key). */
  tls?: TlsPair;
}

export interface AdminServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const BUILTIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

const routes: Route[] = [
  { method: 'GET', path: /^\/status$/, handle: (s, { res }) => sendJson(res, 200, s.status()) },
  {
    method: 'GET',
    path: /^\/scenario$/,
    handle: (s, { res }) => {
      if (!s.engine) throw new ApiError(404, 'no scenario is loaded: every request is forwarded untouched');
      sendJson(res, 200, s.engine.definition);
    },
  },
  { method: 'PUT', path: /^\/scenario$/, handle: putScenario },
  {
    method: 'PATCH',
    path: /^\/rules\/([^/]+)$/,
    handle: async (s, { req, res, params }) => {
      const id = decodePathSegment(params[0]!, (raw) => `PATCH /rules/${raw}`);
      const body = await readJsonBody(req);
      const enabled = (body as { enabled?: unknown } | null)?.enabled;
      if (typeof enabled !== 'boolean') throw new ApiError(400, 'the body must be {"enabled": true} or {"enabled": false}');
      const rule = switchRuleOrRefuse(s, id, enabled, { actor: actorOf(req) });
      sendJson(res, 200, rule);
    },
  },
  {
    method: 'PUT',
    path: /^\/dry-run$/,
    handle: async (s, { req, res }) => {
      const enabled = ((await readJsonBody(req)) as { enabled?: unknown } | null)?.enabled;
      if (typeof enabled !== 'boolean') throw new ApiError(400, 'the body must be {"enabled": true} (stop all faults) or {"enabled": false}');
      s.setDryRun(enabled, actorOf(req));
      sendJson(res, 200, { dry_run: s.status().dry_run });
    },
  },
  { method: 'GET', path: /^\/scenarios$/, handle: async (_s, { res }) => sendJson(res, 200, { scenarios: await listBuiltinScenarios() }) },
  {
    method: 'POST',
    path: /^\/reset$/,
    handle: async (s, { req, res }) => {
      await s.reset(actorOf(req));
      sendJson(res, 200, { reset: true });
    },
  },
  { method: 'GET', path: /^\/journal$/, handle: getJournal },
  { method: 'GET', path: /^\/report$/, handle: (s, { res, url }) => sendJson(res, 200, s.report(sessionQuery(url))) },
  ...sessionRoutes((res, status, body) => sendJson(res, status, body)),
  ...stagingRoutes((res, status, body) => sendJson(res, status, body), readJsonBody),
  {
    method: 'GET',
    path: /^\/metrics$/,
    handle: async (s, { res }) => {
      const text = await s.metrics.text();
      res.writeHead(200, { 'content-type': s.metrics.contentType, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
  },
  {
    method: 'GET',
    path: /^\/events$/,
    handle: (_s, { res }) => {
      // Naming `connection` overrides Node's own choice: say `close` too when the request asked to
      // close, or the socket stays open for the keep-alive timeout after the 426.
      const connection = res.shouldKeepAlive ? 'Upgrade' : 'Upgrade, close';
      throw new ApiError(426, 'GET /events is a WebSocket: connect with a WebSocket client', undefined, { upgrade: 'websocket', connection });
    },
  },
];

export async function startAdminServer(surface: ControlSurface, opts: AdminServerOptions): Promise<AdminServer> {
  const server = createListener(opts.tls, listenerOptions(opts.timeouts), (req, res) => {
    handleRequest(surface, opts, req, res).catch((err: unknown) => {
      process.emitWarning(`aap-chaos: admin request failed: ${(err as Error)?.message ?? String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: { message: 'internal error in the admin API' } });
      else res.destroy();
    });
  });
  server.on('clientError', answerClientError);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://admin').pathname;
    const refusal = adminRequestRefusal(req, opts, true);
    if (refusal) return refuseUpgrade(socket, refusal.status, refusal.message);
    if (path !== '/events') return refuseUpgrade(socket, 404, `no WebSocket at ${path}; live events are at /events`);
    if (opts.token && !bearerTokenMatches(eventsAuthorization(req.headers.authorization, req.headers['sec-websocket-protocol']), opts.token))
      return refuseUpgrade(socket, 401, UNAUTHORIZED);
    const full = surface.hub.refusal();
    if (full) return refuseUpgrade(socket, 503, full);
    surface.hub.accept(req, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `${schemeOf(server)}://${host}:${addr.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const UNAUTHORIZED = 'missing or wrong admin token: send "Authorization: Bearer <token>"';

async function handleRequest(
  surface: ControlSurface,
  { token, timeouts: _timeouts, tls: _tls, ...guard }: AdminServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Every answer holds what a shared cache must not keep: the journal, the report, who did what.
  res.setHeader('cache-control', 'no-store');
  try {
    const refusal = adminRequestRefusal(req, guard);
    if (refusal) throw new ApiError(refusal.status, refusal.message);
    const url = new URL(req.url ?? '/', 'http://admin');
    // The dashboard's static files carry no data; the page asks for the token itself.
    const page = req.method === 'GET' ? dashboardFileFor(url.pathname) : undefined;
    if (page) return await serveDashboardFile(page, res);
    if (token && !bearerTokenMatches(req.headers.authorization, token)) throw new ApiError(401, UNAUTHORIZED, undefined, { 'www-authenticate': 'Bearer' });
    const onPath = routes.map((r) => ({ route: r, m: r.path.exec(url.pathname) })).filter((x) => x.m);
    if (onPath.length === 0) throw new ApiError(404, `no such endpoint: ${req.method} ${url.pathname}`);
    const hit = onPath.find((x) => x.route.method === req.method);
    if (!hit) {
      const allow = onPath.map((x) => x.route.method).join(', ');
      throw new ApiError(405, `${req.method} is not supported on ${url.pathname}; use ${allow}`, undefined, { allow });
    }
    await hit.route.handle(surface, { req, res, url, params: hit.m!.slice(1) });
  } catch (thrown) {
    const err = stagingRefusal(thrown) ?? thrown;
    if (!(err instanceof ApiError)) throw err;
    // The request body may still be arriving; answer and let the connection close.
    sendJson(res, err.status, { error: { message: err.message, ...(err.problems ? { problems: err.problems } : {}) } }, err.headers);
  }
}

/**
 * Body: YAML or JSON scenario text, or `{"name": "<built-in>"}`. Whatever the body holds, it is
 * never taken for a file path: a one-line path is text, which fails the schema.
 */
async function putScenario(surface: ControlSurface, { req, res, url }: Call): Promise<void> {
  const change = changeOf(req, url);
  const text = (await readBody(req)).toString('utf8');
  if (text.trim() === '') throw new ApiError(400, 'empty body: send a scenario as YAML or JSON, or {"name": "<built-in scenario>"}');
  let source: ScenarioSource = { text };
  const parsed = isJson(req) ? parseJson(text) : parseJsonOrUndefined(text);
  const keys = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  if (keys.length === 1 && keys[0] === 'name') {
    const name = (parsed as { name: unknown }).name;
    if (typeof name !== 'string' || !BUILTIN_NAME.test(name))
      throw new ApiError(400, '"name" must be the name of a built-in scenario (letters, digits, - and _); send a file\'s content as the body instead');
    source = { builtin: name };
  }
  let engine: ScenarioEngine;
  try {
    engine = await surface.replaceScenario(source, change);
  } catch (err) {
    if (err instanceof StateStoreError) throw new ApiError(503, err.message);
    const problems = (err as { problems?: unknown }).problems;
    if (!Array.isArray(problems)) throw err;
    const n = problems.length;
    throw new ApiError(422, `scenario rejected (${n} ${n === 1 ? 'problem' : 'problems'}); the current scenario is kept`, problems as string[]);
  }
  const ttl = surface.staging.ttlOf('scenario');
  sendJson(res, 200, {
    scenario: engine.name,
    seed: engine.seed,
    rules: engine.rules(),
    ...(engine.version !== undefined ? { scenario_version: engine.version } : {}),
    ...(ttl ? { ttl } : {}),
  });
}

function getJournal(surface: ControlSurface, { res, url }: Call): void {
  const params = url.searchParams;
  const since = params.get('since') ?? undefined;
  if (since !== undefined && !ULID.test(since)) throw new ApiError(400, `since must be a journal entry id (a 26-character ULID), got "${since.slice(0, 40)}"`);
  const outcome = params.get('outcome') ?? undefined;
  if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome))
    throw new ApiError(400, `outcome must be one of ${OUTCOMES.join(', ')}, got "${outcome.slice(0, 40)}"`);
  const body = surface.journal
    .lines({
      since: since?.toUpperCase(),
      limit: wholeNumberParam(params, 'limit'),
      last: wholeNumberParam(params, 'last'),
      ...sessionQuery(url),
      match: {
        skill: textParam(params, 'skill'),
        outcome: outcome as ReplyOutcome | undefined,
        client: textParam(params, 'client'),
        rule: textParam(params, 'rule'),
      },
    })
    .join('');
  res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const OUTCOMES: readonly ReplyOutcome[] = ['result', 'error', 'unknown'];
/** Longer than any value a journal line stores (src/common/bounds.ts keeps them shorter), so no match is lost. */
const MAX_FILTER_CHARS = 1024;

function wholeNumberParam(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new ApiError(400, `${name} must be a whole number of 1 or more, got "${text.slice(0, 40)}"`);
  return value;
}

function textParam(params: URLSearchParams, name: string): string | undefined {
  const text = params.get(name) ?? undefined;
  if (text !== undefined && (text === '' || text.length > MAX_FILTER_CHARS)) throw new ApiError(400, `${name} must be 1 to ${MAX_FILTER_CHARS} characters`);
  return text;
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // YAML, most likely
  }
}

function isJson(req: IncomingMessage): boolean {
  return /\bjson\b/i.test(req.headers['content-type'] ?? '');
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return parseJson((await readBody(req)).toString('utf8'));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new ApiError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
  res.end(bytes);
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message } });
  const reason = http.STATUS_CODES[status] ?? '';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      (status === 401 ? 'www-authenticate: Bearer\r\n' : '') +
      `\r\n${body}`,
  );
}
