/**
 * Personal data and secrets in AAP requests, for anything that keeps requests on disk (the
 * recording). lead.submit's customer (name, email, phone, address) is replaced by stable
 * pseudonyms: the same person gets the same pseudonym in every recording, so a replay still tells
 * two customers apart and a recorded request matches a live one scrubbed the same way. A value
 * under a key that names a secret (password, token, API key…) is dropped, whatever the skill.
 */
import { createHash } from 'node:crypto';

/**
 * lead.submit `customer` members kept as they are: how to reach the person is personal, which
 * channel they prefer and their region and country are not. Every other text under `customer`
 * (names, email, phone, street, city, postal code, and any member a buyer adds) is pseudonymized.
 */
const KEPT_CUSTOMER_FIELDS = new Set(['preferred_contact', 'region', 'country']);
/** A member whose value is a secret. */
const SECRET_KEY = /pass(word|phrase)|secret|token|api[-_]?key|authorization|credential|cookie/i;
/** Deeper values are cut (a request that deep is no AAP request): every walk here is bounded. */
const MAX_DEPTH = 32;

type PseudonymKind = 'first_name' | 'last_name' | 'email' | 'phone' | 'text';

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
    case 'text':
      return `Pseudo-${hash.slice(0, 6)}`;
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
  if (skill === 'lead.submit' && isRecord(clean) && isRecord(clean.customer)) pseudonymize(clean.customer, replaced, 0);
  return { data: clean, replaced };
}

/** The kind of pseudonym a customer member gets, so that it still passes the request schema. */
function kindOf(key: string): PseudonymKind {
  if (/mail/i.test(key)) return 'email';
  if (/phone|mobile|tel/i.test(key)) return 'phone';
  if (/first|given/i.test(key)) return 'first_name';
  if (/last|family|sur/i.test(key)) return 'last_name';
  return 'text';
}

/** Replaces, in place, every text under the customer (but the kept members) by its pseudonym. */
function pseudonymize(node: Record<string, unknown> | unknown[], replaced: Map<string, string>, depth: number): void {
  if (depth >= MAX_DEPTH) return;
  for (const [key, v] of Object.entries(node)) {
    const field = Array.isArray(node) ? '' : key;
    if (KEPT_CUSTOMER_FIELDS.has(field)) continue;
    if (typeof v === 'string' && v !== '') {
      const alias = pseudonym(kindOf(field), v);
      replaced.set(v, alias);
      (node as Record<string, unknown>)[key] = alias;
    } else if (v !== null && typeof v === 'object') pseudonymize(v as Record<string, unknown>, replaced, depth + 1);
  }
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

/** Headers that carry a credential whatever else they are called. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['set-cookie', 'set-cookie2', 'cookie', 'authorization', 'proxy-authorization', 'x-api-key']);

/**
 * Whether a header's value is a secret: a credential or cookie header, or one whose name says
 * token, secret, password, API key, credential or cookie (`x-auth-token`,
 * `x-amz-security-token`). Such a value is never kept (a recording drops the header) and never
 * becomes something a sink stores (the session header may not be one).
 */
export function isSecretHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || SECRET_KEY.test(lower);
}
