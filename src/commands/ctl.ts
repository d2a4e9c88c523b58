/**
 * `aap-chaos ctl`: a shell front for the admin API, for scripted QA sessions.
 * Each verb is one call; the answer is printed for a person (journal lines stay JSON).
 */
import { UNSAFE_TEXT, UNSAFE_TEXT_KEEPING_LINES } from '../common/safe-text.js';
import { describeProfileOrigin } from '../proxy/profile.js';
import { stat } from 'node:fs/promises';
import { readScenarioFileText } from '../scenario/file-text.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Argv } from 'yargs';
import type { RuleStatus } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { Report } from '../report/report.js';
import { formatReport } from '../report/format.js';
import type { RuntimeStatus } from '../control/surface.js';
import { ADMIN_TOKEN_ENV } from '../control/auth.js';
import type { ChangeNotice, DroppedNotice } from '../control/events.js';
import type { VerdictEvent } from '../observe/live-grader.js';

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';

export interface CtlOptions {
  adminUrl?: string;
  /** Sent as `Authorization: Bearer`; defaults to the AAP_CHAOS_ADMIN_TOKEN variable. */
  token?: string;
  out: (line: string) => void;
  /** Where errors go (default: `out`). */
  err?: (line: string) => void;
  /** Ends `events` (the CLI aborts it on Ctrl-C). */
  signal?: AbortSignal;
}

export const CTL_USAGE =
  'usage: aap-chaos ctl status | use <FILE|NAME> [--ttl 15m] | enable <ID> [--ttl 15m] | disable <ID> [--ttl 15m] | reset [--session ID] | events | journal [--since ULID] [--limit N] [--session ID] | report [--json] [--session ID] | stop-all [REASON] | release | audit';

/** A failed call, already phrased for the person at the shell. */
class CtlError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/** The flags of the verbs, as `runCtl` parses them and the command line declares them. */
interface VerbFlags {
  since?: string;
  limit?: string;
  json?: boolean;
  session?: string;
  ttl?: string;
}

/** The `ctl` command of the command line: yargs parses the words and flags once, and `runVerb` runs them. */
export function ctlCommand(io: { out: (line: string) => void; err: (line: string) => void }) {
  return {
    command: 'ctl <verb> [args..]',
    describe: 'drive a running instance: status | use <FILE|NAME> | enable <ID> | disable <ID> | reset | events | journal | report',
    builder: (y: Argv) =>
      y
        .positional('verb', { type: 'string', demandOption: true })
        .positional('args', { type: 'string', array: true })
        .option('admin', { type: 'string', describe: `admin API URL (default ${DEFAULT_ADMIN_URL})` })
        .option('token', { type: 'string', describe: 'admin token (or AAP_CHAOS_ADMIN_TOKEN)' })
        .option('since', { type: 'string', describe: 'journal: lines after this ULID' })
        .option('limit', { type: 'number', describe: 'journal: at most this many lines' })
        .option('json', { type: 'boolean', describe: 'report: JSON instead of the table' })
        .option('session', { type: 'string', describe: 'report, journal, reset: only this session' })
        .option('ttl', { type: 'string', describe: 'use, enable, disable: the change reverts by itself after this long (e.g. 15m)' }),
    handler: async (argv: Record<string, any>) => {
      const ac = new AbortController();
      process.once('SIGINT', () => ac.abort());
      const words = [argv.verb as string, ...((argv.args as string[] | undefined) ?? [])];
      const flags: VerbFlags = {
        since: argv.since,
        limit: argv.limit === undefined ? undefined : String(argv.limit),
        json: argv.json,
        session: argv.session,
        ttl: argv.ttl,
      };
      process.exitCode = await runVerb(words, flags, { adminUrl: argv.admin, token: argv.token, out: io.out, err: io.err, signal: ac.signal });
    },
  };
}

/** Runs one verb given as shell words; resolves with the exit code (0 ok, 1 failed call, 2 bad usage). */
export async function runCtl(argv: string[], opts: CtlOptions): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' }, session: { type: 'string' }, ttl: { type: 'string' } },
    });
  } catch (e) {
    (opts.err ?? opts.out)(`${(e as Error).message}\n${CTL_USAGE}`);
    return 2;
  }
  return runVerb(parsed.positionals, parsed.values, opts);
}

/** Runs one verb: `words` are the verb and its argument, `flags` already parsed. */
async function runVerb(words: string[], flags: VerbFlags, opts: CtlOptions): Promise<number> {
  const err = opts.err ?? opts.out;
  const [verb, arg, ...extra] = words;
  const needsArg = verb === 'use' || verb === 'enable' || verb === 'disable';
  const mayHaveArg = verb === 'stop-all';
  if (!verb || !(verb in VERBS) || (needsArg && !arg) || extra.length > 0 || (!needsArg && !mayHaveArg && arg)) {
    err(verb && !(verb in VERBS) ? `unknown ctl command "${verb}"\n${CTL_USAGE}` : CTL_USAGE);
    return 2;
  }
  // What the proxy sends back (journal lines, rule ids, errors) may quote a buyer: never let it
  // drive the operator's terminal.
  const out = (text: string) => opts.out(terminalSafe(text));
  const safeErr = (text: string) => err(terminalSafe(text));
  const api = new AdminClient((opts.adminUrl ?? DEFAULT_ADMIN_URL).replace(/\/+$/, ''), opts.token ?? process.env[ADMIN_TOKEN_ENV]);
  try {
    await VERBS[verb as Verb]({ api, arg: arg ?? '', flags, out, signal: opts.signal });
    return 0;
  } catch (e) {
    if (!(e instanceof CtlError)) throw e;
    safeErr(`error: ${e.message}`);
    for (const d of e.details) safeErr(`  ${d}`);
    return 1;
  }
}

interface VerbCall {
  api: AdminClient;
  arg: string;
  flags: VerbFlags;
  out: (line: string) => void;
  signal?: AbortSignal;
}

type Verb = 'status' | 'use' | 'enable' | 'disable' | 'reset' | 'events' | 'journal' | 'report' | 'stop-all' | 'release' | 'audit';

/** `?ttl=…` for a change asked with --ttl; the instance checks the value and names the parameter. */
const ttlSuffix = (ttl: string | undefined): string => (ttl === undefined ? '' : `?${new URLSearchParams({ ttl })}`);
const ttlNote = (ttl: { remaining_s: number; reverts_to: string } | undefined): string => (ttl ? `; reverts to ${ttl.reverts_to} in ${ttl.remaining_s} s` : '');

const VERBS: Record<Verb, (call: VerbCall) => Promise<void>> = {
  async status({ api, out }) {
    formatStatus((await api.json('GET', '/status')) as RuntimeStatus).forEach((l) => out(l));
  },
  async use({ api, arg, flags, out }) {
    const body = await scenarioBody(arg);
    const loaded = (await api.json('PUT', `/scenario${ttlSuffix(flags.ttl)}`, body)) as {
      scenario: string;
      seed: number;
      rules: RuleStatus[];
      ttl?: { remaining_s: number; reverts_to: string };
    };
    out(
      `scenario ${loaded.scenario} loaded (seed ${loaded.seed}, ${loaded.rules.length} ${loaded.rules.length === 1 ? 'rule' : 'rules'})${ttlNote(loaded.ttl)}`,
    );
  },
  enable: (call) => switchRule(call, true),
  disable: (call) => switchRule(call, false),
  async 'stop-all'({ api, arg, out }) {
    const lever = (await api.json('PUT', '/safety-lever', jsonBody(arg ? { reason: arg } : {}))) as { by?: string };
    out(
      `safety lever pulled by ${lever.by ?? 'unknown'}: every replica on this store stops injecting faults (dry run) and refuses new scenarios and rule switches until "ctl release"`,
    );
  },
  async release({ api, out }) {
    await api.json('DELETE', '/safety-lever', jsonBody({}));
    out('safety lever released: faults apply again on every replica');
  },
  async audit({ api, out }) {
    for (const line of (await api.text('GET', '/audit')).split('\n')) if (line) out(line);
  },
  async reset({ api, flags, out }) {
    if (flags.session !== undefined) {
      await api.json('POST', `/sessions/${encodeURIComponent(flags.session)}/reset`, jsonBody({}));
      out(`session ${flags.session}: counters, rate-limit state and its journal lines are reset`);
      return;
    }
    await api.json('POST', '/reset', jsonBody({}));
    out('counters, rate-limit state and the journal ring are reset');
  },
  async journal({ api, flags, out }) {
    const query = new URLSearchParams();
    if (flags.since) query.set('since', flags.since);
    if (flags.limit) query.set('limit', flags.limit);
    if (flags.session !== undefined) query.set('session', flags.session);
    const text = await api.text('GET', `/journal${query.size ? `?${query}` : ''}`);
    for (const line of text.split('\n')) if (line) out(line);
  },
  async report({ api, flags, out }) {
    const query = flags.session !== undefined ? `?${new URLSearchParams({ session: flags.session })}` : '';
    const report = (await api.json('GET', `/report${query}`)) as Report;
    out(flags.json ? JSON.stringify(report, null, 2) : formatReport(report));
  },
  events: ({ api, out, signal }) => api.follow(out, signal),
};

interface Body {
  contentType: string;
  text: string;
}

function jsonBody(value: unknown): Body {
  return { contentType: 'application/json', text: JSON.stringify(value) };
}

/** A file is read here and sent as it is; a bare name asks the instance for its built-in. */
async function scenarioBody(ref: string): Promise<Body> {
  // Anything at the path is read as a file (a FIFO, a directory or an oversized file is refused, naming it).
  const exists = await stat(ref).then(
    () => true,
    () => false,
  );
  if (exists) {
    const read = await readScenarioFileText(ref);
    if (!read.ok) throw new CtlError(`${ref}: ${read.message}`);
    const { text } = read;
    // Checked here first, with the same loader the instance uses, so every problem names FILE:line.
    // Loaded only here: compiling the schema would slow every other verb's start.
    const { formatProblem, loadScenarioText } = await import('../scenario/load.js');
    const loaded = loadScenarioText(text, ref);
    if (!loaded.ok) {
      const n = loaded.problems.length;
      throw new CtlError(
        `${ref}: scenario rejected (${n} ${n === 1 ? 'problem' : 'problems'}); the running scenario is kept`,
        loaded.problems.map(formatProblem),
      );
    }
    return { contentType: path.extname(ref).toLowerCase() === '.json' ? 'application/json' : 'application/yaml', text };
  }
  if (/[/\\]/.test(ref) || path.extname(ref) !== '') throw new CtlError(`no such file: ${ref}`);
  return jsonBody({ name: ref });
}

class AdminClient {
  constructor(
    private readonly base: string,
    private readonly token: string | undefined,
  ) {}

  private get authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  async text(method: string, route: string, body?: Body): Promise<string> {
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
    throw new CtlError(`${method} ${route} answered ${res.status}: ${error?.message ?? (text.trim() || res.statusText)}`, error?.problems ?? []);
  }

  async json(method: string, route: string, body?: Body): Promise<unknown> {
    return JSON.parse(await this.text(method, route, body));
  }

  /** Prints one line per request until the socket closes or `signal` aborts. */
  async follow(out: (line: string) => void, signal?: AbortSignal): Promise<void> {
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
          reject(new CtlError(`GET /events answered ${res.statusCode}: ${message}`));
        });
      });
      ws.on('error', (e) => {
        signal?.removeEventListener('abort', stop);
        reject(this.unreachable(e));
      });
      ws.on('message', (data) => out(eventLine(JSON.parse(data.toString()) as JournalEntry | DroppedNotice | ChangeNotice | VerdictEvent)));
      ws.on('close', (code, reason) => {
        signal?.removeEventListener('abort', stop);
        // Only our own Ctrl-C ends the stream normally; anything else means the proxy went away.
        if (signal?.aborted) return resolve();
        const why =
          code === 1001
            ? 'it is shutting down'
            : code === 1006
              ? 'the connection dropped'
              : `close code ${code}${reason.length ? `: ${reason.toString()}` : ''}`;
        reject(new CtlError(`the proxy went away (${why}); no more events from ${this.base}`));
      });
    });
  }

  private unreachable(e: unknown): CtlError {
    // fetch wraps the socket error in `cause`; ws reports it directly.
    const inner = ((e as { cause?: unknown }).cause ?? e) as { code?: string; message?: string };
    const cause = inner.code ?? inner.message ?? String(e);
    return new CtlError(`cannot reach the admin API at ${this.base} (${cause}); is aap-chaos running? Pass --admin URL`);
  }
}

/**
 * Control characters (C0 but line breaks, DEL, C1) and the Unicode marks that reorder text, as
 * visible `\u001b` escapes: a buyer's method or path cannot move the cursor, retitle the window or
 * hide text on the operator's terminal. JSON text stays valid JSON (the escapes are JSON's own).
 */
export function terminalSafe(text: string, keepLineBreaks = true): string {
  return text.replace(keepLineBreaks ? UNSAFE_TEXT_KEEPING_LINES : UNSAFE_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One readable line per request: time, method, skill, rule, effect, status, duration; always one line. */
export function eventLine(message: JournalEntry | DroppedNotice | ChangeNotice | VerdictEvent): string {
  if ('type' in message && message.type === 'dropped') return `… ${message.count} events missed: this reader fell behind`;
  if ('type' in message && message.type === 'notice') return terminalSafe(`${message.ts.slice(11, 23)}  ${message.event}  ${message.message}`, false);
  if ('type' in message && message.type === 'verdict')
    return terminalSafe(`${message.ts.slice(11, 23)}  verdict  ${message.check}  ${message.verdict}  ${message.client}  ${message.explanation}`, false);
  const e = message as JournalEntry;
  const cols = [
    e.ts.slice(11, 23),
    e.method ?? `${e.http_method} ${e.path}`,
    e.skill ?? '-',
    e.fired.join(',') || '-',
    (e.effects.join('; ') || '-') + (e.dry_run && e.fired.length ? ' (dry run)' : ''),
    e.status === 0 ? 'no reply' : String(e.status),
    `${Math.round(e.duration_ms)} ms`,
  ];
  return terminalSafe(cols.join('  '), false);
}

/** enable / disable: PATCH without a TTL (as before), PUT /rules/ID/enabled?ttl= with one. */
async function switchRule({ api, arg, flags, out }: VerbCall, enabled: boolean): Promise<void> {
  const id = encodeURIComponent(arg);
  const rule = (
    flags.ttl === undefined
      ? await api.json('PATCH', `/rules/${id}`, jsonBody({ enabled }))
      : await api.json('PUT', `/rules/${id}/enabled${ttlSuffix(flags.ttl)}`, jsonBody({ enabled }))
  ) as RuleStatus & { ttl?: { remaining_s: number; reverts_to: string } };
  out(ruleLine(rule) + ttlNote(rule.ttl));
}

function ruleLine(r: RuleStatus): string {
  return `${r.enabled ? 'on ' : 'off'}  ${r.id}  matched ${r.matched}  fired ${r.fired}${r.effects.length ? `  ${r.effects.join('; ')}` : ''}`;
}

function formatStatus(s: RuntimeStatus): string[] {
  const origin = describeProfileOrigin(s.profile_origin);
  const lines = [
    `aap-chaos ${s.version}, up ${s.uptime_s} s: proxy ${s.url} -> ${s.target}${s.mock_dealer ? ' (embedded mock dealer)' : ''}`,
    `profile ${s.profile} (${origin}), extension ${s.extension_uri}${s.observe ? ', OBSERVE (nothing injected)' : s.dry_run ? ', DRY RUN' : ''}`,
    s.scenario ? `scenario ${s.scenario} (seed ${s.seed}), ${s.active_faults} active faults` : 'no scenario: every request is forwarded untouched',
  ];
  for (const r of s.rules) lines.push(`  ${ruleLine(r)}`);
  const lever = s.safety_lever;
  if (lever?.pulled)
    lines.push(
      `SAFETY LEVER PULLED${lever.halted_by ? ` (halted by ${lever.halted_by})` : ''} by ${lever.by ?? 'unknown'}${lever.at ? ` at ${lever.at}` : ''}${lever.reason ? `: ${lever.reason}` : ''}`,
    );
  for (const t of s.ttl ?? []) lines.push(`ttl: ${t.target} reverts to ${t.reverts_to} in ${t.remaining_s} s (at ${t.expires_at})`);
  if (s.guardrails?.length) lines.push(`guardrails: ${s.guardrails.join(', ')}`);
  const j = s.journal;
  lines.push(
    `journal: ${j.entries} in memory (ring ${j.ring_size})${j.file ? `, file ${j.file}` : ''}, ${j.dropped} dropped; ${s.events.clients} event clients, ${s.events.dropped} events dropped`,
  );
  return lines;
}
