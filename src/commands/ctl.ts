/**
 * `aap-chaos ctl`: a shell front for the admin API, for scripted QA sessions.
 * Each verb is one call; the answer is printed for a person (journal lines stay JSON).
 */
import { stat } from 'node:fs/promises';
import { readScenarioFileText } from '../scenario/file-text.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Argv } from 'yargs';
import { formatReport } from '../report/format.js';
import { ADMIN_TOKEN_ENV } from '../control/auth.js';
import { AdminCallError, AdminClient, DEFAULT_ADMIN_URL, jsonBody, type AdminBody } from '../control/admin-client.js';
import { eventLine, ruleLine, statusLines, terminalSafe, ttlNote } from '../control/status-lines.js';

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
  const api = new AdminClient(opts.adminUrl ?? DEFAULT_ADMIN_URL, opts.token ?? process.env[ADMIN_TOKEN_ENV]);
  try {
    await VERBS[verb as Verb]({ api, arg: arg ?? '', flags, out, signal: opts.signal });
    return 0;
  } catch (e) {
    if (!(e instanceof AdminCallError)) throw e;
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

const VERBS: Record<Verb, (call: VerbCall) => Promise<void>> = {
  async status({ api, out }) {
    statusLines(await api.status()).forEach((l) => out(l));
  },
  async use({ api, arg, flags, out }) {
    const body = await scenarioBody(arg);
    const loaded = await api.useScenario(body, flags.ttl);
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
    const text = await api.journalText({ since: flags.since || undefined, limit: flags.limit || undefined, session: flags.session });
    for (const line of text.split('\n')) if (line) out(line);
  },
  async report({ api, flags, out }) {
    const report = await api.report(flags.session);
    out(flags.json ? JSON.stringify(report, null, 2) : formatReport(report));
  },
  events: ({ api, out, signal }) => api.follow((message) => out(eventLine(message)), signal),
};

/** A file is read here and sent as it is; a bare name asks the instance for its built-in. */
async function scenarioBody(ref: string): Promise<AdminBody> {
  // Anything at the path is read as a file (a FIFO, a directory or an oversized file is refused, naming it).
  const exists = await stat(ref).then(
    () => true,
    () => false,
  );
  if (exists) {
    const read = await readScenarioFileText(ref);
    if (!read.ok) throw new AdminCallError(`${ref}: ${read.message}`);
    const { text } = read;
    // Checked here first, with the same loader the instance uses, so every problem names FILE:line.
    // Loaded only here: compiling the schema would slow every other verb's start.
    const { formatProblem, loadScenarioText } = await import('../scenario/load.js');
    const loaded = loadScenarioText(text, ref);
    if (!loaded.ok) {
      const n = loaded.problems.length;
      throw new AdminCallError(
        `${ref}: scenario rejected (${n} ${n === 1 ? 'problem' : 'problems'}); the running scenario is kept`,
        loaded.problems.map(formatProblem),
      );
    }
    return { contentType: path.extname(ref).toLowerCase() === '.json' ? 'application/json' : 'application/yaml', text };
  }
  if (/[/\\]/.test(ref) || path.extname(ref) !== '') throw new AdminCallError(`no such file: ${ref}`);
  return jsonBody({ name: ref });
}

/** enable / disable, with or without a TTL. */
async function switchRule({ api, arg, flags, out }: VerbCall, enabled: boolean): Promise<void> {
  const rule = await api.switchRule(arg, enabled, flags.ttl);
  out(ruleLine(rule) + ttlNote(rule.ttl));
}
