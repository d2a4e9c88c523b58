/**
 * Personal data and secrets in AAP requests, for anything that keeps requests on disk (the
 * recording). lead.submit's customer (name, email, phone, street address) is replaced by stable
 * pseudonyms: the same person gets the same pseudonym in every recording, so a replay still tells
 * two customers apart and a recorded request matches a live one scrubbed the same way. A value
 * under a key that names a secret (password, token, API key…) is dropped, whatever the skill.
 */
import { createHash } from 'node:crypto';

/** lead.submit `customer` members that identify a person, by the kind of pseudonym they get. */
const CUSTOMER_FIELDS: Record<string, PseudonymKind> = { first_name: 'first_name', last_name: 'last_name', email: 'email', phone: 'phone' };
/** `customer.address` members that locate a person; region and country are kept. */
const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'postal_code'];
/** A member whose value is a secret. */
const SECRET_KEY = /pass(word|phrase)|secret|token|api[-_]?key|authorization|credential|cookie/i;
/** Deeper values are cut (a request that deep is no AAP request): every walk here is bounded. */
const MAX_DEPTH = 32;

type PseudonymKind = 'first_name' | 'last_name' | 'email' | 'phone' | 'address';

/**
 * A stable pseudonym that still passes the lead.submit schema (an email address, an E.164 phone
 * number). Unkeyed, so stable across recordings: someone holding a guessed address can confirm it,
 * which is why contact data is never the only thing a recording is trusted to hide.
 */
export function pseudonym(kind: PseudonymKind, value: string): string {
  const hash = createHash('sha256').update(`aap-chaos pseudonym\0${kind}\0${value.trim().toLowerCase()}`).digest('hex');
  switch (kind) {
    case 'email':
      return `customer-${hash.slice(0, 10)}@example.invalid`;
    case 'phone':
      return `+1555${String(parseInt(hash.slice(0, 8), 16) % 10_000_000).padStart(7, '0')}`;
    case 'first_name':
      return `First-${hash.slice(0, 6)}`;
    case 'last_name':
      return `Last-${hash.slice(0, 6)}`;
    case 'address':
      return `Addr-${hash.slice(0, 6)}`;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A copy without members that name secrets; cut below MAX_DEPTH. */
export function withoutSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = withoutSecrets(v, depth + 1);
  return out;
}

export interface ScrubbedRequest {
  data: unknown;
  /** Each personal value replaced, and its pseudonym: the same values in the reply get the same. */
  replaced: Map<string, string>;
}

/**
 * A skill request's DataPart `data` fit to be kept: secrets dropped and, for lead.submit, the
 * customer's contact pseudonymized.
 */
export function scrubSkillData(skill: string | undefined, data: unknown): ScrubbedRequest {
  const replaced = new Map<string, string>();
  const clean = withoutSecrets(data);
  const customer = skill === 'lead.submit' && isRecord(clean) ? clean.customer : undefined;
  if (isRecord(customer)) {
    for (const [field, kind] of Object.entries(CUSTOMER_FIELDS)) {
      const v = customer[field];
      if (typeof v === 'string' && v !== '') replaced.set(v, (customer[field] = pseudonym(kind, v)));
    }
    const address = customer.address;
    if (isRecord(address))
      for (const field of ADDRESS_FIELDS) {
        const v = address[field];
        if (typeof v === 'string' && v !== '') replaced.set(v, (address[field] = pseudonym('address', v)));
      }
  }
  return { data: clean, replaced };
}

/** A reply fit to be kept: secrets dropped and every personal value the request named replaced by its pseudonym. */
export function scrubReply(value: unknown, replaced: Map<string, string>, depth = 0): unknown {
  if (typeof value === 'string') return replaced.size === 0 ? value : scrubText(value, replaced);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((v) => scrubReply(v, replaced, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = scrubReply(v, replaced, depth + 1);
  return out;
}

/**
 * Text with every personal value replaced by its pseudonym, where it stands as a whole word: a
 * customer named "Al" leaves "All-wheel drive" alone.
 */
export function scrubText(text: string, replaced: Map<string, string>): string {
  let out = text;
  for (const [original, alias] of replaced) {
    if (!out.includes(original)) continue;
    const escaped = original.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), () => alias);
  }
  return out;
}

/** Response headers that carry a secret, never kept. */
export const SECRET_RESPONSE_HEADERS: ReadonlySet<string> = new Set(['set-cookie', 'set-cookie2', 'authorization', 'proxy-authorization', 'x-api-key']);
