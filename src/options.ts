/**
 * The one table of run options: for each, the library name, the flag that sets it, how the flag
 * reads in --help (type, default, description, choices) and what a valid value is. The proxy
 * command's flags, the reading of those flags into options and the typed fields of
 * `RuntimeOptions` are all made from the rows, so adding an option is adding a row. The CLI checks
 * its flags here and `startChaos()` / `startRuntime()` check their options here, so a value is
 * accepted or refused the same way wherever it is given, and the refusal is one line naming the
 * flag (or option) and the value.
 */
import { displayUrl } from './common/display-url.js';
import {
  absoluteUri,
  boolean,
  bytes,
  bytesAtLeast1,
  clientKey,
  dealerList,
  dealerTarget,
  fileSize,
  headerNames,
  hostNames,
  httpUrl,
  Invalid,
  keepCount,
  keyFileOrJwk,
  MAX_DEALERS,
  maxTtl,
  oneOf,
  parseDurationMs,
  pointers,
  port,
  positiveNumber,
  replicaId,
  sessionHeaderName,
  stateStore,
  text,
  wholeNumber,
} from './option-values.js';

/** A value that cannot be used; the message names the flag or option and the value. */
export class OptionError extends Error {
  override name = 'OptionError';
}

/** Where a value came from, which decides how the message names it. */
export type OptionOrigin = 'flag' | 'library';

type Parse = (value: unknown) => unknown;

/** How a flag reads on the command line and in --help. */
export interface FlagSpec {
  /** The CLI flag without dashes. */
  flag: string;
  /** 'string' for a value `parse` reads (numbers and durations too), 'boolean' for a switch. */
  type: 'string' | 'boolean';
  /** The value when the flag is not given, as --help shows it. */
  default?: string | boolean;
  /** The --help text, which is also the option's documentation. */
  describe: string;
  /** Repeatable: every value given is kept, in order. */
  array?: true;
  /** The values --help lists; `parse` accepts exactly these. */
  choices?: readonly string[];
  /** The next argument is the value even when it starts with "-" (so "-1" is refused by `parse`, not read as a flag). */
  nargs?: 1;
  /** A one-letter name. */
  alias?: string;
}

/** A run option: its flag, and what a valid value is. */
export interface OptionSpec extends FlagSpec {
  /** Turns a given value into the option's value, or throws a problem phrase (see `invalid`). */
  parse: Parse;
  /** How a refused value (or the one item of a list at fault) is quoted, when it may hold a secret (a URL's credentials). */
  shown?: (value: string) => string;
}

/** An option of the library with no flag. */
interface LibraryOptionSpec {
  describe: string;
  parse: Parse;
}

type OptionTable = Record<string, { parse: Parse }>;

/** The options of a table, each typed by what its `parse` returns. */
export type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]?: ReturnType<T[K]['parse']> };

/**
 * Every option of a run, one row each: the library option's name (the key), its flag, how the
 * flag reads in --help, and its check. The proxy command's flags, the mapping from flags to
 * options and the typed part of `RuntimeOptions` are all made from these rows; the proxy's --help
 * lists them in this order, after the flags only the command has.
 */
export const RUN_OPTIONS = {
  target: {
    flag: 'target',
    type: 'string',
    describe: 'dealer agent base URL, or replay:FILE (a dealer answering from a recording); without it the embedded mock dealer is used',
    parse: dealerTarget,
    shown: displayUrl,
  },
  dealers: {
    flag: 'dealer',
    type: 'string',
    array: true,
    describe: 'several dealers behind one proxy: NAME=URL, repeatable; each is reached under /d/NAME/ (not with --target)',
    parse: dealerList,
    shown: displayUrl,
  },
  mockDealers: {
    flag: 'mock-dealers',
    type: 'string',
    nargs: 1,
    describe: `start N embedded mock dealers (m1…mN, 1-${MAX_DEALERS}), each under /d/NAME/ with its own seeded inventory and lead store`,
    parse: wholeNumber(1, MAX_DEALERS, `a number of mock dealers from 1 to ${MAX_DEALERS}`),
  },
  port: { flag: 'port', type: 'string', nargs: 1, default: '8080', describe: 'proxy port (0 = any free port)', parse: port },
  host: { flag: 'host', type: 'string', default: '127.0.0.1', describe: 'proxy address', parse: text },
  allowHosts: {
    flag: 'allow-host',
    type: 'string',
    array: true,
    describe: 'a Host name the proxy answers to besides loopback names when it listens on loopback (*.NAME for subdomains); repeatable',
    parse: hostNames,
  },
  seed: {
    flag: 'seed',
    type: 'string',
    nargs: 1,
    describe: 'seed for every random choice, 0-4294967295 (overrides the scenario)',
    parse: wholeNumber(0, 4_294_967_295, 'a whole number from 0 to 4294967295'),
  },
  // No default: an absent flag lets the scenario's profile: (then the card) decide.
  profile: {
    flag: 'profile',
    type: 'string',
    describe: "envelope profile (default: the scenario's profile:, else auto, which reads the dealer card)",
    ...oneOf(['auto', '1.3', '2.0']),
  },
  extensionUri: { flag: 'extension-uri', type: 'string', describe: 'AAP extension URI named by -32008 (default: from the dealer card)', parse: absoluteUri },
  upstreamTimeoutMs: {
    flag: 'upstream-timeout',
    type: 'string',
    nargs: 1,
    default: '30s',
    describe: "how long to wait for the dealer's headers and between body chunks (e.g. 30s, 500ms; 0 = no timeout)",
    parse: parseDurationMs,
  },
  streamIdleTimeoutMs: {
    flag: 'stream-idle-timeout',
    type: 'string',
    nargs: 1,
    default: '0',
    describe: "how long a dealer's event stream (text/event-stream) may go quiet between events, instead of --upstream-timeout (0 = no limit)",
    parse: parseDurationMs,
  },
  maxInspectBytes: {
    flag: 'max-inspect-bytes',
    type: 'string',
    nargs: 1,
    default: String(1024 * 1024),
    describe: 'request bodies larger than this are forwarded without inspection',
    parse: bytes,
  },
  rewriteCard: {
    flag: 'rewrite-card',
    type: 'boolean',
    default: true,
    describe: 'point the agent card interface URLs at the proxy (--no-rewrite-card to disable)',
    parse: boolean,
  },
  cardSigningKey: {
    flag: 'card-signing-key',
    type: 'string',
    describe:
      'private key (PKCS#8 PEM or JWK file; EC P-256, Ed25519 or RSA) that signs every agent card served (A2A v1.0 card signatures); its public half is at /.well-known/aap-chaos/jwks.json. Without it, dealer signatures the card rewrite breaks are removed',
    parse: keyFileOrJwk,
  },
  dryRun: { flag: 'dry-run', type: 'boolean', default: false, describe: 'decide and journal faults, but change nothing', parse: boolean },
  checkDealer: {
    flag: 'check-dealer',
    type: 'boolean',
    default: false,
    describe: "check the dealer's replies against the AAP conformance rules (journaled; bytes unchanged)",
    parse: boolean,
  },
  allowHeaderFaults: {
    flag: 'allow-header-faults',
    type: 'boolean',
    default: false,
    describe: 'let requests force a fault with x-aap-chaos: <rule id | AAP code>',
    parse: boolean,
  },
  adminPort: { flag: 'admin-port', type: 'string', nargs: 1, default: '8081', describe: 'admin API port (0 = any free port)', parse: port },
  adminHost: {
    flag: 'admin-host',
    type: 'string',
    default: '127.0.0.1',
    describe: 'admin API address (any non-loopback address needs --admin-token)',
    parse: text,
  },
  adminToken: { flag: 'admin-token', type: 'string', describe: 'bearer token for the admin API (or AAP_CHAOS_ADMIN_TOKEN)', parse: text },
  journalFile: { flag: 'journal', type: 'string', describe: 'append one JSON line per request to this file', parse: text },
  journalRing: {
    flag: 'journal-ring',
    type: 'string',
    nargs: 1,
    default: '10000',
    describe: 'journal entries kept in memory for the admin API (≥ 1)',
    parse: wholeNumber(1, 100_000_000, 'a whole number ≥ 1'),
  },
  journalMaxBytes: {
    flag: 'journal-max-bytes',
    type: 'string',
    nargs: 1,
    describe: 'rotate the --journal file before it grows past this size (bytes, or 512K, 64M, 1G): FILE becomes FILE.1, FILE.1 FILE.2 …',
    parse: fileSize,
  },
  journalKeep: {
    flag: 'journal-keep',
    type: 'string',
    nargs: 1,
    default: '5',
    describe: 'rotated journal files kept (FILE.1 … FILE.K); the oldest is deleted',
    parse: keepCount,
  },
  journalCompress: {
    flag: 'journal-compress',
    type: 'boolean',
    default: false,
    describe: 'gzip each rotated journal file (FILE.1.gz …)',
    parse: boolean,
  },
  drainTimeoutMs: {
    flag: 'drain-timeout',
    type: 'string',
    nargs: 1,
    default: '5s',
    describe: 'how long requests in flight may finish at shutdown',
    parse: parseDurationMs,
  },
  clientKey: {
    flag: 'client-key',
    type: 'string',
    describe: 'who a journal line belongs to: ip or header:NAME (default: the header every rule keys on, else ip)',
    parse: clientKey,
  },
  sessionHeader: {
    flag: 'session-header',
    type: 'string',
    default: 'x-aap-chaos-session',
    describe: 'request header that names a session (its own rule state, journal and report); never a secret header',
    parse: sessionHeaderName,
  },
  maxBodyBytes: {
    flag: 'max-body',
    type: 'string',
    nargs: 1,
    default: String(10 * 1024 * 1024),
    describe: 'request bodies larger than this are refused with 413',
    parse: bytesAtLeast1,
  },
  // No sink stores header values, and client keys from headers are keyed hashes: these are kept for the record only.
  redactHeaders: {
    flag: 'redact-header',
    type: 'string',
    array: true,
    describe: 'a header whose value is a secret (besides Authorization, cookies, x-api-key); repeatable',
    parse: headerNames,
  },
  state: {
    flag: 'state',
    type: 'string',
    describe: 'where rule state lives: memory (default) or redis://host:port/db, shared by every replica (or AAP_CHAOS_STATE)',
    parse: stateStore,
    shown: displayUrl,
  },
  replicaId: {
    flag: 'replica-id',
    type: 'string',
    describe: "this replica's name in journal lines and /status (default host-pid); also mixed into the seed",
    parse: replicaId,
  },
  record: {
    flag: 'record',
    type: 'string',
    describe: 'append every exchange with the dealer (and its agent card) to this JSONL recording, for aap-chaos replay',
    parse: text,
  },
  recordMaxBytes: {
    flag: 'record-max-bytes',
    type: 'string',
    nargs: 1,
    default: String(100 * 1024 * 1024),
    describe: 'the recording stops, with a message, when the file would grow past this',
    parse: bytesAtLeast1,
  },
  otlpEndpoint: {
    flag: 'otlp-endpoint',
    type: 'string',
    describe: 'OTLP/HTTP collector URL for a span per exchange (/v1/traces is added; or OTEL_EXPORTER_OTLP_ENDPOINT)',
    parse: httpUrl,
    shown: displayUrl,
  },
  observe: {
    flag: 'observe',
    type: 'boolean',
    default: false,
    describe: 'inject nothing (as --dry-run) and grade live buyer traffic with the report checks, continuously',
    parse: boolean,
  },
  tlsCert: {
    flag: 'tls-cert',
    type: 'string',
    describe: 'PEM certificate: serve buyers over HTTPS (with --tls-key); reloaded on SIGHUP, or on change with --watch',
    parse: text,
  },
  tlsKey: { flag: 'tls-key', type: 'string', describe: 'PEM private key of --tls-cert', parse: text },
  adminTlsCert: {
    flag: 'admin-tls-cert',
    type: 'string',
    describe: 'PEM certificate: serve the admin API over HTTPS (with --admin-tls-key)',
    parse: text,
  },
  adminTlsKey: { flag: 'admin-tls-key', type: 'string', describe: 'PEM private key of --admin-tls-cert', parse: text },
  maxTtlMs: {
    flag: 'max-ttl',
    type: 'string',
    describe: 'longest time to live of a runtime change (e.g. 1h; 720h at most); with it, a change without ?ttl= gets this one',
    parse: maxTtl,
  },
  auditFile: {
    flag: 'audit',
    type: 'string',
    describe: 'append one hash-chained JSON line per state-changing admin action to this file (its head in FILE.head)',
    parse: text,
  },
  auditMaxBytes: {
    flag: 'audit-max-bytes',
    type: 'string',
    nargs: 1,
    describe: 'rotate the --audit file before it grows past this size (bytes, or 512K, 64M, 1G); the chain goes on across files',
    parse: fileSize,
  },
  auditKeep: {
    flag: 'audit-keep',
    type: 'string',
    nargs: 1,
    default: '5',
    describe: 'rotated audit files kept (FILE.1 … FILE.K); the oldest is deleted',
    parse: keepCount,
  },
  auditCompress: {
    flag: 'audit-compress',
    type: 'boolean',
    default: false,
    describe: 'gzip each rotated audit file (FILE.1.gz …)',
    parse: boolean,
  },
  headerTimeoutMs: {
    flag: 'header-timeout',
    type: 'string',
    default: '10s',
    describe: 'time a client has to send its request headers',
    parse: parseDurationMs,
  },
  bodyTimeoutMs: {
    flag: 'body-timeout',
    type: 'string',
    default: '30s',
    describe: 'time a client has, after the headers, to send its request body',
    parse: parseDurationMs,
  },
} as const satisfies Record<string, OptionSpec>;

/** Options of the library that no flag sets. */
export const LIBRARY_OPTIONS = {
  eventsBufferBytes: { describe: 'bytes a slow /events client may have waiting before its messages are dropped', parse: bytes },
  fastPath: {
    describe:
      'accepted and ignored, so existing callers are not refused: it switched a second dealer client for untouched exchanges, removed when it measured no faster than undici',
    parse: boolean,
  },
} as const satisfies Record<string, LibraryOptionSpec>;

/** Limits on scenario files, shared by every command that loads one. */
export const SCENARIO_LIMIT_OPTIONS = {
  maxBytes: {
    flag: 'max-scenario-bytes',
    type: 'string',
    nargs: 1,
    default: String(1024 * 1024),
    describe: 'scenario files larger than this are refused',
    parse: bytesAtLeast1,
  },
  maxRules: {
    flag: 'max-scenario-rules',
    type: 'string',
    nargs: 1,
    default: '10000',
    describe: 'scenarios with more rules than this are refused',
    parse: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number ≥ 1'),
  },
} as const satisfies Record<string, OptionSpec>;

/** Options of the embedded mock dealer, nested under `mock` in the library and prefixed on the CLI. */
export const MOCK_OPTIONS = {
  profile: {
    flag: 'mock-profile',
    type: 'string',
    describe: 'profile of the embedded mock dealer (default: the --profile or scenario profile: in force, else 1.3)',
    ...oneOf(['1.3', '2.0']),
  },
  extensionUri: {
    flag: 'mock-extension-uri',
    type: 'string',
    describe: 'AAP extension URI the embedded mock dealer declares (default: the v1.3 URI, or the 2.0 draft placeholder)',
    parse: absoluteUri,
  },
  streaming: { flag: 'mock-streaming', type: 'boolean', default: false, describe: 'let the mock dealer serve SendStreamingMessage', parse: boolean },
  inventoryFile: { flag: 'inventory', type: 'string', describe: 'JSON inventory file for the mock dealer', parse: text },
  signCard: {
    flag: 'mock-sign-card',
    type: 'string',
    describe:
      'private key (PKCS#8 PEM or JWK file) the embedded mock dealer signs its agent card with; the proxy signs the cards it serves with it too, unless --card-signing-key names another',
    parse: text,
  },
} as const satisfies Record<string, OptionSpec>;

/** Options of a replayed dealer (`--target replay:FILE`, `aap-chaos replay`), nested under `replay` in the library. */
export const REPLAY_OPTIONS = {
  speed: {
    flag: 'speed',
    type: 'string',
    nargs: 1,
    default: '1',
    describe: 'divide the recorded gaps between SSE events by this (2 = twice as fast)',
    parse: positiveNumber,
  },
  ignore: {
    flag: 'ignore',
    type: 'string',
    array: true,
    describe: 'a JSON Pointer that matching ignores (into the DataPart data), or that --diff ignores (into each reply); repeatable',
    parse: pointers,
  },
  onMiss: {
    flag: 'on-miss',
    type: 'string',
    default: 'error',
    describe: 'a request with no recorded match: an error naming the nearest recorded one, pass to --target (and record), or the nearest reply',
    ...oneOf(['error', 'pass', 'nearest']),
  },
  passTarget: {
    flag: 'target',
    type: 'string',
    describe: 'the live dealer: where --on-miss pass forwards, and what --diff compares against',
    parse: httpUrl,
    shown: displayUrl,
  },
} as const satisfies Record<string, OptionSpec>;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** What a check needs of a row: a flag when the option has one. */
type Checked = { flag?: string; parse: Parse; shown?: (value: string) => string };

function label(spec: Checked, name: string, origin: OptionOrigin): string {
  if (spec.flag === undefined) return `option ${name}`;
  return origin === 'flag' ? `--${spec.flag}` : `option ${name} (flag --${spec.flag})`;
}

/** Checks one value; `undefined` means "not given" and is kept. */
export function checkOption<S extends Checked>(spec: S, name: string, value: unknown, origin: OptionOrigin): ReturnType<S['parse']> | undefined {
  if (value === undefined) return undefined;
  try {
    return spec.parse(value) as ReturnType<S['parse']>;
  } catch (e) {
    const refused = e instanceof Invalid && e.item ? e.item.value : value;
    const quoted = spec.shown && typeof refused === 'string' ? JSON.stringify(spec.shown(refused)) : describeValue(refused);
    if (e instanceof Invalid) throw new OptionError(`${label(spec, name, origin)}: ${quoted} ${e.problem}`);
    throw e;
  }
}

/**
 * The options of `table` read from parsed command-line flags, each under its flag's name, and
 * checked; a flag not given (and without a default) stays absent. Throws OptionError naming the flag.
 */
export function readFlags<T extends Record<string, OptionSpec>>(table: T, flags: Record<string, unknown>): OptionValues<T> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const value = checkOption(spec, name, flags[spec.flag], 'flag');
    if (value !== undefined) out[name] = value;
  }
  return out as OptionValues<T>;
}

/**
 * Checks every known option of `given` (others are left to the caller) and returns a copy with
 * the parsed values: a port given as "8080" on the command line becomes 8080.
 */
export function checkOptions<T extends Record<string, unknown>>(given: T, origin: OptionOrigin): T {
  const out: Record<string, unknown> = { ...given };
  for (const table of [RUN_OPTIONS, LIBRARY_OPTIONS])
    for (const [name, spec] of Object.entries<Checked>(table)) if (name in given) out[name] = checkOption(spec, name, given[name], origin);
  for (const [group, specs] of [
    ['mock', MOCK_OPTIONS],
    ['replay', REPLAY_OPTIONS],
  ] as const) {
    const nested = given[group];
    if (nested === undefined) continue;
    if (nested === null || typeof nested !== 'object')
      throw new OptionError(`${origin === 'flag' ? `${group} options` : `option ${group}`}: ${describeValue(nested)} is not an object`);
    const checked: Record<string, unknown> = { ...(nested as Record<string, unknown>) };
    for (const [name, spec] of Object.entries(specs)) if (name in checked) checked[name] = checkOption(spec, `${group}.${name}`, checked[name], origin);
    out[group] = checked;
  }
  return out as T;
}
