/**
 * The admin API's shared-staging endpoints: the safety lever (`GET/PUT/DELETE /safety-lever`),
 * the audit log (`GET /audit`), a rule switch with a time to live (`PUT /rules/ID/enabled?ttl=`),
 * and what every state-changing route needs from them: who is asking (`actorOf`), the `?ttl=`
 * query (`ttlQuery`), and the answers for a change the lever or --max-ttl refuses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuleStatus, ScenarioEngine } from '../engine/decision.js';
import { withoutUnsafeText } from '../common/safe-text.js';
import { ApiError, decodePathSegment, type Route } from '../http/routes.js';
import { ttlMs } from '../option-values.js';
import { tokenFingerprint } from './audit.js';
import { LeverPulledError, type Actor, type ChangeOptions, type StagingControls } from './controls.js';
import { TtlRefusedError } from './ttl.js';

/** What the staging routes drive: the controls, and the rule switches of the scenario in force. */
export interface StagingSurface {
  readonly staging: StagingControls;
  readonly engine: ScenarioEngine | undefined;
  setRuleEnabled(id: string, enabled: boolean, change?: ChangeOptions): RuleStatus | undefined;
}

/** Switches a rule of the scenario in force, or throws the 404 that names the rules there are. */
export function switchRuleOrRefuse(s: StagingSurface, id: string, enabled: boolean, change?: ChangeOptions): RuleStatus {
  const engine = s.engine;
  if (!engine) throw new ApiError(404, `no scenario is loaded, so there is no rule "${id}"`);
  const rule = s.setRuleEnabled(id, enabled, change);
  if (!rule)
    throw new ApiError(
      404,
      `no rule "${id}" in scenario ${engine.name}; rules: ${
        engine
          .rules()
          .map((r) => r.id)
          .join(', ') || '(none)'
      }`,
    );
  return rule;
}

/** Longest reason or name kept for the lever, so a caller cannot grow /status without bound. */
const MAX_TEXT = 200;

/** Who sent an admin call: its address and which token (a fingerprint, never the token). */
export function actorOf(req: IncomingMessage): Actor {
  return { remote: req.socket.remoteAddress ?? null, token: tokenFingerprint(req.headers.authorization) };
}

/** `?ttl=15m` as milliseconds, undefined when absent; a bad value is a 400 naming the parameter. */
export function ttlQuery(url: URL): number | undefined {
  const ttl = url.searchParams.get('ttl');
  if (ttl === null) return undefined;
  try {
    return ttlMs(ttl);
  } catch (e) {
    throw new ApiError(400, `ttl: ${JSON.stringify(ttl.slice(0, 40))} ${(e as Error).message}`);
  }
}

/** The change an admin call asks for: who, and for how long. */
export function changeOf(req: IncomingMessage, url: URL): ChangeOptions {
  return { actor: actorOf(req), ttlMs: ttlQuery(url) };
}

/** The API's answer to a change refused by the safety lever (409) or by --max-ttl (400); undefined for other errors. */
export function stagingRefusal(err: unknown): ApiError | undefined {
  if (err instanceof LeverPulledError) return new ApiError(409, err.message);
  if (err instanceof TtlRefusedError) return new ApiError(400, err.message);
  return undefined;
}

function optionalText(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw new ApiError(400, `"${key}" must be a string of at most ${MAX_TEXT} characters`);
  // It reaches log lines, terminals and the audit log: one line, nothing that steers a terminal or reorders text.
  return withoutUnsafeText(value);
}

export function stagingRoutes(
  sendJson: (res: ServerResponse, status: number, body: unknown) => void,
  readJsonBody: (req: IncomingMessage) => Promise<unknown>,
): Route<StagingSurface>[] {
  return [
    { method: 'GET', path: /^\/safety-lever$/, handle: (s, { res }) => sendJson(res, 200, s.staging.lever.state) },
    {
      method: 'PUT',
      path: /^\/safety-lever$/,
      handle: async (s, { req, res }) => {
        const body = await readJsonBody(req);
        const given = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
        const pulled = given.pulled ?? true;
        if (typeof pulled !== 'boolean')
          throw new ApiError(400, 'the body must be {"reason": "…", "by": "…"} to pull the lever, or {"pulled": false} to release it');
        const by = optionalText(given, 'by');
        const actor = { ...actorOf(req), ...(by ? { by } : {}) };
        sendJson(res, 200, await (pulled ? s.staging.pullLever(optionalText(given, 'reason'), actor) : s.staging.releaseLever(actor)));
      },
    },
    { method: 'DELETE', path: /^\/safety-lever$/, handle: async (s, { req, res }) => sendJson(res, 200, await s.staging.releaseLever(actorOf(req))) },
    {
      method: 'GET',
      path: /^\/audit$/,
      handle: async (s, { res, url }) => {
        const limitText = url.searchParams.get('limit');
        const limit = limitText === null ? 10_000 : Number(limitText);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
          throw new ApiError(400, `limit must be a whole number from 1 to 100000, got "${String(limitText).slice(0, 40)}"`);
        const body = (await s.staging.audit.recent(limit)).map((e) => JSON.stringify(e) + '\n').join('');
        res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
    },
    {
      method: 'PUT',
      path: /^\/rules\/([^/]+)\/enabled$/,
      handle: async (s, { req, res, url, params }) => {
        const id = decodePathSegment(params[0]!, (raw) => `/rules/${raw}/enabled`);
        const body = await readJsonBody(req);
        const enabled = typeof body === 'boolean' ? body : (body as { enabled?: unknown } | null)?.enabled;
        if (typeof enabled !== 'boolean') throw new ApiError(400, 'the body must be true, false, {"enabled": true} or {"enabled": false}');
        const rule = switchRuleOrRefuse(s, id, enabled, changeOf(req, url));
        const ttl = s.staging.ttlOf(`rule:${id}`);
        sendJson(res, 200, { ...rule, ...(ttl ? { ttl } : {}) });
      },
    },
  ];
}
