/**
 * The one table of run options: for each, the library name, the flag that sets it and what a
 * valid value is. The CLI checks its flags here and `startChaos()` / `startRuntime()` check their
 * options here, so a value is accepted or refused the same way wherever it is given, and the
 * refusal is one line naming the flag (or option) and the value.
 */
import { displayUrl } from './common/display-url.js';

import { ttlMs } from './common/ttl.js';

/** A value that cannot be used; the message names the flag or option and the value. */
export class OptionError extends Error {
  override name = 'OptionError';
}

/** Where a value came from, which decides how the message names it. */
export type OptionOrigin = 'flag' | 'library';

type Parse = (value: unknown) => unknown;

interface OptionSpec {
  /** The CLI flag without dashes. */
  flag: string;
  /** Turns a given value into the option's value, or throws a problem phrase (see `invalid`). */
  parse: Parse;
  /** How a refused value is quoted, when it may hold a secret (a Redis URL's password). */
  shown?: (value: string) => string;
}

/** Thrown by parsers: what is wrong, without saying where (the caller adds the flag or option). */
class Invalid {
  /** `item`: the one value of a list at fault, named instead of the whole list. */
  constructor(
    readonly problem: string,
    readonly item?: { value: unknown },
  ) {}
}
const invalid = (problem: string, item?: { value: unknown }): never => {
  throw new Invalid(problem, item);
};

function wholeNumber(min: number, max: number, what: string): Parse {
  return (value) => {
    const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) return invalid(`is not ${what}`);
    return n;
  };
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/;

/** "30s", "500ms", "2m", or a number of milliseconds (a number from the library, a string from the shell). */
export function parseDurationMs(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return invalid('is not a duration (a number of milliseconds ≥ 0)');
    return value;
  }
  const m = typeof value === 'string' ? DURATION.exec(value.trim()) : null;
  if (!m) return invalid('is not a duration (use e.g. 30s, 500ms or a number of milliseconds)');
  const n = Number(m[1]);
  return m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n;
}

function positiveDuration(value: unknown): number {
  try {
    return ttlMs(value);
  } catch (e) {
    return invalid((e as Error).message);
  }
}

function text(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return invalid('is not a non-empty string');
  return value;
}

function httpUrl(value: unknown): string {
  const s = text(value);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return invalid('is not a URL (use e.g. http://127.0.0.1:9000)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid('is not an http:// or https:// URL');
  return s;
}

/** The prefix of a target that is a recording to replay instead of a dealer. */
export const REPLAY_TARGET_PREFIX = 'replay:';

/** A dealer URL, or replay:FILE (a dealer answering from a recording). */
function dealerTarget(value: unknown): string {
  if (typeof value === 'string' && value.startsWith(REPLAY_TARGET_PREFIX)) {
    return value.length > REPLAY_TARGET_PREFIX.length ? value : invalid('names no recording (use replay:FILE)');
  }
  return httpUrl(value);
}

function positiveNumber(value: unknown): number {
  const n = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : invalid('is not a number greater than 0');
}

/** JSON Pointers (RFC 6901), one or a list. */
function pointers(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  for (const p of list) if (typeof p !== 'string' || (p !== '' && !p.startsWith('/'))) return invalid(`is not a JSON Pointer (e.g. /filters/make)`);
  return list as string[];
}

function absoluteUri(value: unknown): string {
  const s = text(value);
  if (!URL.canParse(s)) return invalid('is not an absolute URI');
  return s;
}

function oneOf(values: readonly string[]): Parse {
  return (value) => (typeof value === 'string' && values.includes(value) ? value : invalid(`is not one of ${values.join(', ')}`));
}

function boolean(value: unknown): boolean {
  return typeof value === 'boolean' ? value : invalid('is not true or false');
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerName(value: unknown): string {
  return typeof value === 'string' && HEADER_NAME.test(value) ? value : invalid('is not an HTTP header name');
}

function clientKey(value: unknown): string {
  if (value === 'ip') return value;
  if (typeof value === 'string' && value.startsWith('header:') && HEADER_NAME.test(value.slice('header:'.length))) return value;
  return invalid('is not ip or header:NAME');
}

function stateStore(value: unknown): string {
  const s = text(value);
  if (s === 'memory') return s;
  if (!URL.canParse(s) || !['redis:', 'rediss:'].includes(new URL(s).protocol)) return invalid('is neither memory nor a redis://host:port/db URL');
  return s;
}

function replicaId(value: unknown): string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,64}$/.test(value) ? value : invalid('is not a replica id (1-64 printable characters, no spaces)');
}

/** A host name, an IPv4 address, a bracketed IPv6 address, or `*.` and a domain (its subdomains). */
const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

/** One or more host names (repeated, or comma-separated), lower case. */
function hostNames(value: unknown): string[] {
  const given = Array.isArray(value) ? value : [value];
  if (!given.every((v) => typeof v === 'string')) return invalid('is not a host name');
  const names = (given as string[]).flatMap((v) => v.split(',')).map((n) => n.trim().toLowerCase());
  const bad = names.find((n) => !HOST_NAME.test(n));
  if (bad !== undefined) return invalid(`holds "${bad}", which is not a host name (e.g. dealer-proxy.internal, *.staging.example, 10.0.0.5)`);
  return names;
}

/** How many dealers one listener fronts at most (each is a path prefix; the bound keeps /status and the dashboard readable). */
export const MAX_DEALERS = 64;
const DEALER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

export interface DealerTarget {
  name: string;
  url: string;
}

/** `--dealer NAME=URL`, repeatable: a list of named dealers, each name once. */
function dealerList(value: unknown): DealerTarget[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_DEALERS) return invalid(`is more than ${MAX_DEALERS} dealers (one listener fronts at most ${MAX_DEALERS})`);
  const seen = new Set<string>();
  return list.map((item) => {
    const bad = (problem: string) => invalid(problem, { value: item });
    let name: unknown, url: unknown;
    if (typeof item === 'string') {
      const eq = item.indexOf('=');
      if (eq < 0) return bad('has no name (use NAME=URL, e.g. b=http://127.0.0.1:9001)');
      [name, url] = [item.slice(0, eq), item.slice(eq + 1)];
    } else if (item && typeof item === 'object') ({ name, url } = item as Record<string, unknown>);
    else return bad('is not NAME=URL');
    if (typeof name !== 'string' || !DEALER_NAME.test(name)) return bad('has no usable name (letters, digits, - and _, 1-32 characters, before the =)');
    if (seen.has(name)) return bad(`names dealer ${name} a second time`);
    seen.add(name);
    try {
      return { name, url: httpUrl(url) };
    } catch (e) {
      return e instanceof Invalid ? bad(`has a URL that ${e.problem}`) : bad('has no URL');
    }
  });
}

const port = wholeNumber(0, 65_535, 'a port number (0-65535; 0 picks a free port)');

export const RUN_OPTIONS = {
  target: { flag: 'target', parse: dealerTarget },
  port: { flag: 'port', parse: port },
  host: { flag: 'host', parse: text },
  allowHosts: { flag: 'allow-host', parse: hostNames },
  adminPort: { flag: 'admin-port', parse: port },
  adminHost: { flag: 'admin-host', parse: text },
  adminToken: { flag: 'admin-token', parse: text },
  seed: { flag: 'seed', parse: wholeNumber(0, 4_294_967_295, 'a whole number from 0 to 4294967295') },
  profile: { flag: 'profile', parse: oneOf(['auto', '1.3', '2.0']) },
  extensionUri: { flag: 'extension-uri', parse: absoluteUri },
  upstreamTimeoutMs: { flag: 'upstream-timeout', parse: parseDurationMs },
  streamIdleTimeoutMs: { flag: 'stream-idle-timeout', parse: parseDurationMs },
  maxInspectBytes: { flag: 'max-inspect-bytes', parse: wholeNumber(0, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 0') },
  rewriteCard: { flag: 'rewrite-card', parse: boolean },
  dryRun: { flag: 'dry-run', parse: boolean },
  allowHeaderFaults: { flag: 'allow-header-faults', parse: boolean },
  journalFile: { flag: 'journal', parse: text },
  journalRing: { flag: 'journal-ring', parse: wholeNumber(1, 100_000_000, 'a whole number ≥ 1') },
  drainTimeoutMs: { flag: 'drain-timeout', parse: parseDurationMs },
  clientKey: { flag: 'client-key', parse: clientKey },
  sessionHeader: { flag: 'session-header', parse: headerName },
  headerTimeoutMs: { flag: 'header-timeout', parse: parseDurationMs },
  bodyTimeoutMs: { flag: 'body-timeout', parse: parseDurationMs },
  maxBodyBytes: { flag: 'max-body', parse: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 1') },
  state: { flag: 'state', parse: stateStore, shown: displayUrl },
  replicaId: { flag: 'replica-id', parse: replicaId },
  workers: { flag: 'workers', parse: wholeNumber(1, 256, 'a number of workers from 1 to 256') },
  record: { flag: 'record', parse: text },
  recordMaxBytes: { flag: 'record-max-bytes', parse: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 1') },
  otlpEndpoint: { flag: 'otlp-endpoint', parse: httpUrl },
  observe: { flag: 'observe', parse: boolean },
  dealers: { flag: 'dealer', parse: dealerList },
  mockDealers: { flag: 'mock-dealers', parse: wholeNumber(1, MAX_DEALERS, `a number of mock dealers from 1 to ${MAX_DEALERS}`) },
  eventsBufferBytes: { flag: 'events-buffer-bytes', parse: wholeNumber(0, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 0') },
  tlsCert: { flag: 'tls-cert', parse: text },
  tlsKey: { flag: 'tls-key', parse: text },
  adminTlsCert: { flag: 'admin-tls-cert', parse: text },
  adminTlsKey: { flag: 'admin-tls-key', parse: text },
  maxTtlMs: { flag: 'max-ttl', parse: positiveDuration },
  auditFile: { flag: 'audit', parse: text },
} satisfies Record<string, OptionSpec>;

/** Limits on scenario files, shared by every command that loads one. */
export const SCENARIO_LIMIT_OPTIONS = {
  maxBytes: { flag: 'max-scenario-bytes', parse: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 1') },
  maxRules: { flag: 'max-scenario-rules', parse: wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number ≥ 1') },
} satisfies Record<string, OptionSpec>;

/** Options of the embedded mock dealer, nested under `mock` in the library and prefixed on the CLI. */
export const MOCK_OPTIONS = {
  profile: { flag: 'mock-profile', parse: oneOf(['1.3', '2.0']) },
  streaming: { flag: 'mock-streaming', parse: boolean },
  inventoryFile: { flag: 'inventory', parse: text },
  extensionUri: { flag: 'mock-extension-uri', parse: absoluteUri },
} satisfies Record<string, OptionSpec>;

/** Options of a replayed dealer (`--target replay:FILE`, `aap-chaos replay`), nested under `replay` in the library. */
export const REPLAY_OPTIONS = {
  speed: { flag: 'speed', parse: positiveNumber },
  ignore: { flag: 'ignore', parse: pointers },
  onMiss: { flag: 'on-miss', parse: oneOf(['error', 'pass', 'nearest']) },
  passTarget: { flag: 'target', parse: httpUrl },
} satisfies Record<string, OptionSpec>;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? String(value);
}

function label(spec: OptionSpec, name: string, origin: OptionOrigin): string {
  return origin === 'flag' ? `--${spec.flag}` : `option ${name} (flag --${spec.flag})`;
}

/** Checks one value; `undefined` means "not given" and is kept. */
export function checkOption(spec: OptionSpec, name: string, value: unknown, origin: OptionOrigin): unknown {
  if (value === undefined) return undefined;
  try {
    return spec.parse(value);
  } catch (e) {
    const quoted =
      spec.shown && typeof value === 'string' ? JSON.stringify(spec.shown(value)) : describeValue(e instanceof Invalid && e.item ? e.item.value : value);
    if (e instanceof Invalid) throw new OptionError(`${label(spec, name, origin)}: ${quoted} ${e.problem}`);
    throw e;
  }
}

/**
 * Checks every known option of `given` (others are left to the caller) and returns a copy with
 * the parsed values: a port given as "8080" on the command line becomes 8080.
 */
export function checkOptions<T extends Record<string, unknown>>(given: T, origin: OptionOrigin): T {
  const out: Record<string, unknown> = { ...given };
  for (const [name, spec] of Object.entries(RUN_OPTIONS)) if (name in given) out[name] = checkOption(spec, name, given[name], origin);
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
