/**
 * What a valid option value is: the readers the option tables of src/options.ts are made of (and
 * the few other places that read the same kinds of value: a time to live, a duration, a whole
 * number). Each returns the value it read or throws an `Invalid` with the problem phrase; the
 * caller names the flag or option.
 */
import type { JWK } from 'jose';
import { isSecretHeaderName } from './protocol/secret-text.js';

/** Thrown by parsers: what is wrong, without saying where (the caller adds the flag or option). */
export class Invalid {
  /** `item`: the one value of a list at fault, named instead of the whole list. */
  constructor(
    readonly problem: string,
    readonly item?: { value: unknown },
  ) {}
}
export const invalid = (problem: string, item?: { value: unknown }): never => {
  throw new Invalid(problem, item);
};

const TTL = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest time to live: 30 days. A runtime change meant to outlive a month is a baseline, not
 * an experiment; and a bound keeps every expiry time a date (`?ttl=99999999999h` once made every
 * /status answer 500, in every replica, for good).
 */
export const MAX_TTL_MS = 30 * 24 * 3_600_000;
/** setTimeout's longest delay (about 24.8 days): a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;
const LONGEST_TIMER = `${Math.floor(MAX_TIMER_MS / 3_600_000)}h, the longest a timer can wait`;

/** "15m", "1h", "90s", "500ms" or a number of milliseconds, above zero and at most `max`; `what` names the bound. */
function durationUpTo(value: unknown, max: number, what: string): number {
  const m = typeof value === 'string' ? TTL.exec(value.trim()) : null;
  const ms = typeof value === 'number' ? value : m ? Number(m[1]) * UNIT_MS[m[2] ?? 'ms']! : NaN;
  if (Number.isNaN(ms) || ms <= 0) throw new Error('is not a duration above zero (use e.g. 15m, 1h, 90s or 500ms)');
  if (!(ms <= max)) throw new Error(`is longer than ${what}`);
  return ms;
}

/**
 * A time to live (`?ttl=`, `--max-ttl`, `ctl --ttl`, the library's `ttlMs`): above zero and at
 * most MAX_TTL_MS. Throws an Error whose message is the problem phrase (the caller names the flag
 * or parameter).
 */
export function ttlMs(value: unknown): number {
  return durationUpTo(value, MAX_TTL_MS, `${MAX_TTL_MS / 3_600_000}h (30 days), the longest time to live`);
}

/** A whole number from `min` to `max`, given as a number or as digits; `what` names the range in the refusal. */
export function wholeNumber(min: number, max: number, what: string): (value: unknown) => number {
  return (value) => {
    const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) return invalid(`is not ${what}`);
    return n;
  };
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/;

/**
 * "30s", "500ms", "2m", or a number of milliseconds (a number from the library, a string from the
 * shell), at most what a timer can wait: a longer one would fire at once (a --drain-timeout of
 * 99999999999999 drained nothing).
 */
export function parseDurationMs(value: unknown): number {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return invalid('is not a duration (a number of milliseconds ≥ 0)');
    ms = value;
  } else {
    const m = typeof value === 'string' ? DURATION.exec(value.trim()) : null;
    if (!m) return invalid('is not a duration (use e.g. 30s, 500ms or a number of milliseconds)');
    const n = Number(m[1]);
    ms = m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n;
  }
  return ms <= MAX_TIMER_MS ? ms : invalid(`is longer than ${LONGEST_TIMER}`);
}

/** Turns the Error of a duration reader into the refusal of an option. */
function asOption(read: (value: unknown) => number): (value: unknown) => number {
  return (value) => {
    try {
      return read(value);
    } catch (e) {
      return invalid((e as Error).message);
    }
  };
}

/** A duration above zero that a timer can wait: "15m", "1h", "90s", "500ms" or a number of milliseconds. */
export const positiveDuration = asOption((value) => durationUpTo(value, MAX_TIMER_MS, LONGEST_TIMER));

/** `--max-ttl`: a time to live. */
export const maxTtl = asOption(ttlMs);

export function text(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return invalid('is not a non-empty string');
  return value;
}

export function httpUrl(value: unknown): string {
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

/** A key file's name; from the library, a private JWK object given inline too (its problems are found when it is loaded). */
export function keyFileOrJwk(value: unknown): string | JWK {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as JWK).kty === 'string') return value as JWK;
  if (typeof value !== 'string' || value.trim() === '') return invalid('is not a key file (PKCS#8 PEM or JWK), nor a private JWK object');
  return value;
}

/** The prefix of a target that is a recording to replay instead of a dealer. */
export const REPLAY_TARGET_PREFIX = 'replay:';

/** A dealer URL, or replay:FILE (a dealer answering from a recording). */
export function dealerTarget(value: unknown): string {
  if (typeof value === 'string' && value.startsWith(REPLAY_TARGET_PREFIX)) {
    return value.length > REPLAY_TARGET_PREFIX.length ? value : invalid('names no recording (use replay:FILE)');
  }
  return httpUrl(value);
}

export function positiveNumber(value: unknown): number {
  const n = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : invalid('is not a number greater than 0');
}

/** JSON Pointers (RFC 6901), one or a list. */
export function pointers(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  for (const p of list) if (typeof p !== 'string' || (p !== '' && !p.startsWith('/'))) return invalid(`is not a JSON Pointer (e.g. /filters/make)`);
  return list as string[];
}

export function absoluteUri(value: unknown): string {
  const s = text(value);
  if (!URL.canParse(s)) return invalid('is not an absolute URI');
  return s;
}

/** One of `values`: the row gets both the list --help shows and the check, from one declaration. */
export function oneOf<const T extends string>(values: readonly T[]): { choices: readonly T[]; parse: (value: unknown) => T } {
  return {
    choices: values,
    parse: (value) =>
      typeof value === 'string' && (values as readonly string[]).includes(value) ? (value as T) : invalid(`is not one of ${values.join(', ')}`),
  };
}

export function boolean(value: unknown): boolean {
  return typeof value === 'boolean' ? value : invalid('is not true or false');
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerName(value: unknown): string {
  return typeof value === 'string' && HEADER_NAME.test(value) ? value : invalid('is not an HTTP header name');
}

/** The session header: its value becomes the session id in every sink, so it may not carry a secret. */
export function sessionHeaderName(value: unknown): string {
  const name = headerName(value);
  if (isSecretHeaderName(name))
    return invalid(
      'is a header whose value is a secret (a credential, cookie or token): its value would be written as the session id into the journal, /events, the report and Redis key names; use a header of its own, e.g. x-aap-chaos-session',
    );
  return name;
}

/** Why `sessionHeader` cannot name a session, given the --redact-header names; undefined when it can. */
export function sessionHeaderRefusal(sessionHeader: string | undefined, redactHeaders: readonly string[] | undefined): string | undefined {
  if (sessionHeader === undefined || !redactHeaders?.some((h) => h.toLowerCase() === sessionHeader.toLowerCase())) return undefined;
  return `--session-header: "${sessionHeader}" is named by --redact-header, so its value is a secret: it would be written as the session id into every sink; use a header of its own`;
}

/** Header names, one or a list (a repeated flag). */
export function headerNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  for (const name of list) if (typeof name !== 'string' || !HEADER_NAME.test(name)) return invalid('is not an HTTP header name', { value: name });
  return list as string[];
}

export function clientKey(value: unknown): string {
  if (value === 'ip') return value;
  if (typeof value === 'string' && value.startsWith('header:') && HEADER_NAME.test(value.slice('header:'.length))) return value;
  return invalid('is not ip or header:NAME');
}

export function stateStore(value: unknown): string {
  const s = text(value);
  if (s === 'memory') return s;
  if (!URL.canParse(s) || !['redis:', 'rediss:'].includes(new URL(s).protocol)) return invalid('is neither memory nor a redis://host:port/db URL');
  return s;
}

export function replicaId(value: unknown): string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,64}$/.test(value) ? value : invalid('is not a replica id (1-64 printable characters, no spaces)');
}

/** A host name, an IPv4 address, a bracketed IPv6 address, or `*.` and a domain (its subdomains). */
const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

/** One or more host names (repeated, or comma-separated), lower case. */
export function hostNames(value: unknown): string[] {
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
export function dealerList(value: unknown): DealerTarget[] {
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

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** A size of at least 1 KiB: a number of bytes, or with K, M or G (KiB, MiB, GiB): "64M". */
export function fileSize(value: unknown): number {
  const m = typeof value === 'string' ? /^\s*(\d+)\s*([kmg]?)i?b?\s*$/i.exec(value) : null;
  const n = typeof value === 'number' ? value : m ? Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]! : NaN;
  return Number.isSafeInteger(n) && n >= 1024 ? n : invalid('is not a size of at least 1024 bytes (e.g. 1048576, 512K, 64M, 1G)');
}

/** How many rotated files a log keeps (FILE.1 … FILE.K). */
export const keepCount = wholeNumber(1, 100_000, 'a whole number of files from 1 to 100000');

export const port = wholeNumber(0, 65_535, 'a port number (0-65535; 0 picks a free port)');
export const bytesAtLeast1 = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 1');
export const bytes = wholeNumber(0, Number.MAX_SAFE_INTEGER, 'a whole number of bytes ≥ 0');
