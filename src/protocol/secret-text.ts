/**
 * Secrets and personal data in text from outside — a dealer's reply, a buyer's free text — found
 * by name, by value and by shape, for every sink that keeps such text (the journal marks what was
 * there; a recording gives contacts stable pseudonyms, in personal-data.ts).
 *
 * - By name: a member or header called like a secret (password, token, API key, cookie, …).
 * - By value: what the request itself carried as a secret or as the customer's own data
 *   (`KnownValues`) — a secret header's value, a secret-named member's value, the customer's names
 *   — wherever a dealer echoes it, under whatever name (`"seen_auth": "…"`).
 * - By shape: e-mail addresses, phone numbers, bearer/basic credentials, JWTs, and API keys that
 *   announce themselves (`sk_live_…`, `ghp_…`, `xoxb-…`, `AKIA…`, `AIza…`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { firstHeaderValue } from './header-value.js';

/** A member or header name whose value is a secret. */
export const SECRET_KEY = /pass(word|phrase)|secret|token|api[-_]?key|authorization|credential|cookie/i;
/** Headers that carry a credential whatever else they are called. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['set-cookie', 'set-cookie2', 'cookie', 'authorization', 'proxy-authorization', 'x-api-key']);

/**
 * Whether a header's value is a secret: a credential or cookie header, or one whose name says
 * token, secret, password, API key, credential or cookie (`x-auth-token`, `x-amz-security-token`).
 * Such a value is never kept (a recording drops the header) and never becomes what a sink stores
 * (the session header may not be one).
 */
export function isSecretHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || SECRET_KEY.test(lower);
}

export const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Not the marker `[token redacted]` itself: masking twice gives what masking once gave. */
const CREDENTIAL = /\b(Bearer|Basic|Token)(\s+)(?!redacted\])[A-Za-z0-9._~+/=-]{6,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const API_KEY = /\b(?:[sprk]k_(?:live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})/g;
/** Digits with the separators phone numbers are written with (not dots: versions and addresses). */
export const PHONE_LIKE = /(?<![\w.+-])(?:\+\d|\(\d{1,4}\)|\d)[\d\s()-]{5,}\d(?![\w.])/g;
const DATE = /^\d{4}-\d{2}-\d{2}/;
/** One cheap test first: most texts hold neither a digit run, an @, a credential word nor a key prefix. */
const MAY_HOLD_SHAPE = /[@\d]|bearer|basic|token|eyJ|_live_|_test_|gh[pousr]_|xox|AKIA|AIza/i;

/** Whether a run of digits and separators is a phone number rather than a date or an amount. */
export function isPhone(match: string): boolean {
  const digits = match.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15 || DATE.test(match)) return false;
  // A bare number is one only when as long as a number with its area code.
  return /^\d+$/.test(match) ? digits >= 10 : true;
}

/** Credentials by shape, masked: `Bearer [redacted]`, `[token redacted]`. */
export function maskCredentials(text: string): string {
  if (!MAY_HOLD_SHAPE.test(text)) return text;
  return text.replace(CREDENTIAL, '$1$2[redacted]').replace(JWT, '[token redacted]').replace(API_KEY, '[token redacted]');
}

/** What one request carried that must not be kept wherever it is echoed. */
export interface KnownValues {
  /** Credentials: secret headers' values (and the token after a scheme), secret-named members' values. */
  secrets: readonly string[];
  /** The customer's own texts (names, contact, address), found as whole words. */
  personal: readonly string[];
}

export const NO_KNOWN_VALUES: KnownValues = { secrets: [], personal: [] };

/** Shorter values are not looked for: they would be found in ordinary text. */
const MIN_SECRET_CHARS = 4;
const MIN_PERSONAL_CHARS = 2;
/** Values kept from one request at most; every walk here is bounded. */
const MAX_KNOWN = 64;
const MAX_DEPTH = 32;
/** lead.submit customer members that are not personal: how to reach the person is, which channel and region are not. */
export const KEPT_CUSTOMER_FIELDS: ReadonlySet<string> = new Set(['preferred_contact', 'region', 'country']);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A header's secret value, and the parts a dealer may echo alone: the token after `Bearer `, each cookie's value. */
function headerSecretParts(name: string, value: string): string[] {
  const parts = [value];
  const scheme = /^\s*[A-Za-z-]+\s+(\S+)\s*$/.exec(value);
  if (scheme) parts.push(scheme[1]!);
  if (name === 'cookie') for (const pair of value.split(';')) parts.push(pair.slice(pair.indexOf('=') + 1).trim());
  return parts;
}

/** Every string under `node` (its keys aside), bounded. */
function stringsIn(node: unknown, into: string[], depth = 0): void {
  if (into.length >= MAX_KNOWN) return;
  if (typeof node === 'string') into.push(node);
  else if (node !== null && typeof node === 'object' && depth < MAX_DEPTH) for (const v of Object.values(node)) stringsIn(v, into, depth + 1);
}

/** Strings under members whose names say secret, anywhere in `node`. */
function secretMembersIn(node: unknown, into: string[], depth = 0): void {
  if (node === null || typeof node !== 'object' || depth >= MAX_DEPTH || into.length >= MAX_KNOWN) return;
  for (const [k, v] of Object.entries(node)) {
    if (!Array.isArray(node) && SECRET_KEY.test(k)) stringsIn(v, into);
    else secretMembersIn(v, into, depth + 1);
  }
}

/**
 * What a request carried that a sink must not keep, wherever a dealer echoes it: the values of its
 * secret headers (and of `extraSecretHeaders`, the --redact-header names), the values of its
 * secret-named members, and its lead customer's own texts.
 */
export function knownValuesOf(headers: IncomingHttpHeaders, body: unknown, skillData: unknown, extraSecretHeaders: readonly string[] = []): KnownValues {
  const secrets: string[] = [];
  for (const name of Object.keys(headers)) {
    if (!isSecretHeaderName(name) && !extraSecretHeaders.some((h) => h.toLowerCase() === name)) continue;
    const value = firstHeaderValue(headers, name);
    if (value !== undefined) secrets.push(...headerSecretParts(name, value));
  }
  secretMembersIn(body, secrets);
  const personal: string[] = [];
  const customer = isRecord(skillData) ? skillData.customer : undefined;
  if (isRecord(customer)) for (const [k, v] of Object.entries(customer)) if (!KEPT_CUSTOMER_FIELDS.has(k)) stringsIn(v, personal);
  const usable = (min: number) => (v: string) => v.trim().length >= min;
  return {
    secrets: [...new Set(secrets.filter(usable(MIN_SECRET_CHARS)))].sort((a, b) => b.length - a.length).slice(0, MAX_KNOWN),
    personal: [...new Set(personal.filter(usable(MIN_PERSONAL_CHARS)).map((v) => v.trim()))].sort((a, b) => b.length - a.length).slice(0, MAX_KNOWN),
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with each of `values` replaced wherever it occurs (`wholeWords`: only where it stands as a word: "Al" leaves "All" alone). */
export function replaceValues(text: string, values: Iterable<[string, string]>, wholeWords: boolean): string {
  let out = text;
  for (const [original, replacement] of values) {
    if (!out.includes(original)) continue;
    out = wholeWords
      ? out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(original)}(?![\\p{L}\\p{N}])`, 'gu'), () => replacement)
      : out.split(original).join(replacement);
  }
  return out;
}

/** The text with credentials and the request's own secrets masked: the first step of every text kept. */
export function maskSecrets(text: string, known: KnownValues = NO_KNOWN_VALUES): string {
  const out = maskCredentials(text);
  return known.secrets.length
    ? replaceValues(
        out,
        known.secrets.map((s) => [s, '[redacted]']),
        false,
      )
    : out;
}

/** The text with credentials, known values, contacts and phone numbers replaced by markers saying what was there. */
export function redactContacts(text: string, known: KnownValues = NO_KNOWN_VALUES): string {
  let out = maskSecrets(text, known);
  if (known.personal.length)
    out = replaceValues(
      out,
      known.personal.map((s) => [s, '[personal data redacted]']),
      true,
    );
  if (!/[@\d]/.test(out)) return out;
  return out.replace(EMAIL, '[e-mail redacted]').replace(PHONE_LIKE, (m) => (isPhone(m) ? '[phone redacted]' : m));
}

/** A copy of JSON data with every string (keys included) passed through `redactContacts`, and secret-named members' values masked. */
export function redactContactsIn(value: unknown, known: KnownValues = NO_KNOWN_VALUES, depth = 0): unknown {
  if (typeof value === 'string') return redactContacts(value, known);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) return value.map((v) => redactContactsIn(v, known, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redactContacts(k, known)] = SECRET_KEY.test(k) ? '[redacted]' : redactContactsIn(v, known, depth + 1);
  return out;
}
