/**
 * A client of a running instance's admin API: the one place that knows its routes from the
 * calling side. `aap-chaos ctl` (a shell) and `aap-chaos mcp` (a coding agent's tools) both drive
 * an instance through it, with the same token and the same refusals.
 */
import type { RuleStatus } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { ReplyOutcome } from '../journal/outcome.js';
import type { Report } from '../report/report.js';
import type { BuiltinScenarioInfo } from '../scenario/builtin.js';
import { displayUrl } from '../common/display-url.js';
import type { ChangeNotice, DroppedNotice } from './events.js';
import type { RuntimeStatus } from './surface.js';
import type { TtlStatus } from '../staging/ttl.js';
import type { VerdictEvent } from '../observe/live-grader.js';

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';

/** A failed call, phrased for a person: what was asked, what the instance answered, and its problems. */
export class AdminCallError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
    /** The HTTP status the instance answered with; absent when it could not be reached. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A request body and its content type (the admin API takes JSON, and YAML for a scenario). */
export interface AdminBody {
  contentType: string;
  text: string;
}

export function jsonBody(value: unknown): AdminBody {
  return { contentType: 'application/json', text: JSON.stringify(value) };
}

/** What `PUT /scenario` answers. */
export interface ScenarioLoaded {
  scenario: string;
  seed: number;
  rules: RuleStatus[];
  scenario_version?: number;
  ttl?: TtlStatus;
}

/** The filters `GET /journal` takes (docs/control.md); a value is sent as given, and the instance checks it. */
export interface JournalFilter {
  since?: string;
  /** The oldest N lines that match (after `since`). */
  limit?: number | string;
  /** The newest N lines that match. */
  last?: number | string;
  session?: string;
  skill?: string;
  outcome?: ReplyOutcome;
  client?: string;
  rule?: string;
}

/** `?ttl=…` for a change asked with a TTL; the instance checks the value and names the parameter. */
const ttlSuffix = (ttl: string | undefined): string => (ttl === undefined ? '' : `?${new URLSearchParams({ ttl })}`);

export class AdminClient {
  private readonly base: string;
  /** The base as messages show it: without a password the URL may hold. */
  private readonly shown: string;

  constructor(
    base: string,
    private readonly token: string | undefined,
  ) {
    this.base = base.replace(/\/+$/, '');
    this.shown = displayUrl(this.base).replace(/\/$/, '');
  }

  status(): Promise<RuntimeStatus> {
    return this.json('GET', '/status') as Promise<RuntimeStatus>;
  }

  async scenarios(): Promise<BuiltinScenarioInfo[]> {
    return ((await this.json('GET', '/scenarios')) as { scenarios: BuiltinScenarioInfo[] }).scenarios;
  }

  /** Scenario text, or `jsonBody({ name })` for a built-in. */
  useScenario(body: AdminBody, ttl?: string): Promise<ScenarioLoaded> {
    return this.json('PUT', `/scenario${ttlSuffix(ttl)}`, body) as Promise<ScenarioLoaded>;
  }

  /** PATCH without a TTL (as before TTLs existed), PUT /rules/ID/enabled?ttl= with one. */
  switchRule(id: string, enabled: boolean, ttl?: string): Promise<RuleStatus & { ttl?: TtlStatus }> {
    const route = `/rules/${encodeURIComponent(id)}`;
    return (
      ttl === undefined ? this.json('PATCH', route, jsonBody({ enabled })) : this.json('PUT', `${route}/enabled${ttlSuffix(ttl)}`, jsonBody({ enabled }))
    ) as Promise<RuleStatus & { ttl?: TtlStatus }>;
  }

  /** The journal lines that match, as the instance sends them (JSON lines). */
  journalText(filter: JournalFilter = {}): Promise<string> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, String(value));
    return this.text('GET', `/journal${query.size ? `?${query}` : ''}`);
  }

  async journal(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    return (await this.journalText(filter))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JournalEntry);
  }

  report(session?: string): Promise<Report> {
    return this.json('GET', `/report${session !== undefined ? `?${new URLSearchParams({ session })}` : ''}`) as Promise<Report>;
  }

  async text(method: string, route: string, body?: AdminBody): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.base + route, {
        method,
        headers: { ...this.authHeaders, ...(body ? { 'content-type': body.contentType } : {}) },
        body: body?.text,
      });
    } catch (e) {
      throw this.unreachable(e);
    }
    const text = await res.text();
    if (res.ok) return text;
    let error: { message?: string; problems?: string[] } | undefined;
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error;
    } catch {
      // not one of our JSON errors: fall through to the status line
    }
    throw new AdminCallError(
      `${method} ${route} answered ${res.status}: ${error?.message ?? (text.trim() || res.statusText)}`,
      error?.problems ?? [],
      res.status,
    );
  }

  async json(method: string, route: string, body?: AdminBody): Promise<unknown> {
    return JSON.parse(await this.text(method, route, body));
  }

  /** Calls `out` with each message of `/events` until the socket closes or `signal` aborts. */
  async follow(out: (message: JournalEntry | DroppedNotice | ChangeNotice | VerdictEvent) => void, signal?: AbortSignal): Promise<void> {
    // Loaded on use: only `ctl events` needs a WebSocket client.
    const { WebSocket } = await import('ws');
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${this.base.replace(/^http/, 'ws')}/events`, { headers: this.authHeaders });
      const stop = () => ws.close(1000);
      signal?.addEventListener('abort', stop, { once: true });
      ws.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let message = Buffer.concat(chunks).toString('utf8');
          try {
            message = (JSON.parse(message) as { error: { message: string } }).error.message;
          } catch {
            // keep the raw text
          }
          signal?.removeEventListener('abort', stop);
          ws.terminate();
          reject(new AdminCallError(`GET /events answered ${res.statusCode}: ${message}`, [], res.statusCode));
        });
      });
      ws.on('error', (e) => {
        signal?.removeEventListener('abort', stop);
        reject(this.unreachable(e));
      });
      ws.on('message', (data) => out(JSON.parse(data.toString()) as JournalEntry | DroppedNotice | ChangeNotice | VerdictEvent));
      ws.on('close', (code, reason) => {
        signal?.removeEventListener('abort', stop);
        // Only our own abort ends the stream normally; anything else means the proxy went away.
        if (signal?.aborted) return resolve();
        const why =
          code === 1001
            ? 'it is shutting down'
            : code === 1006
              ? 'the connection dropped'
              : `close code ${code}${reason.length ? `: ${reason.toString()}` : ''}`;
        reject(new AdminCallError(`the proxy went away (${why}); no more events from ${this.shown}`));
      });
    });
  }

  private get authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  private unreachable(e: unknown): AdminCallError {
    // fetch wraps the socket error in `cause`; ws reports it directly.
    const inner = ((e as { cause?: unknown }).cause ?? e) as { code?: string; message?: string };
    // fetch quotes a URL with credentials in its message: cleaned like the URL itself.
    const cause = displayUrl(inner.code ?? inner.message ?? String(e));
    return new AdminCallError(`cannot reach the admin API at ${this.shown} (${cause}); is aap-chaos running? Pass --admin URL`);
  }
}
