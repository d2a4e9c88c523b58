/**
 * Personal data and secrets in AAP requests and replies, for anything that keeps them on disk (the
 * recording). lead.submit's customer (name, email, phone, address) is replaced by stable
 * pseudonyms: the same person gets the same pseudonym in every recording, so a replay still tells
 * two customers apart and a recorded request matches a live one scrubbed the same way. E-mail
 * addresses and phone numbers anywhere else (a lead's free-text message, a dealer's reply) get the
 * same pseudonyms by shape; a value under a key that names a secret (password, token, API key…) is
 * dropped, whatever the skill; credentials are masked by shape, and the request's own secrets
 * wherever a reply echoes them (secret-text.ts).
 */
import { createHash } from 'node:crypto';
import {
  EMAIL,
  isPhone,
  KEPT_CUSTOMER_FIELDS,
  maskCredentials,
  maskSecrets,
  NO_KNOWN_VALUES,
  PHONE_LIKE,
  replaceValues,
  SECRET_KEY,
  type KnownValues,
} from './secret-text.js';

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
 * A skill request's DataPart `data` fit to be kept: secrets dropped, for lead.submit the
 * customer's contact pseudonymized, and contacts anywhere else (a free-text message) given their
 * pseudonyms by shape.
 */
export function scrubSkillData(skill: string | undefined, data: unknown): ScrubbedRequest {
  const replaced = new Map<string, string>();
  const clean = withoutSecrets(data);
  if (skill === 'lead.submit' && isRecord(clean) && isRecord(clean.customer)) pseudonymize(clean.customer, replaced, 0);
  return { data: scrubStrings(clean, pseudonymizeText), replaced };
}

/** A method's params fit to be kept (GetTask, CancelTask…): secrets dropped, contacts pseudonymized by shape. */
export function scrubParams(params: unknown): unknown {
  return scrubStrings(withoutSecrets(params), pseudonymizeText);
}

/** A copy of JSON data with every string value passed through `scrub`; bounded like every walk here. */
function scrubStrings(value: unknown, scrub: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => scrubStrings(v, scrub, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubStrings(v, scrub, depth + 1);
  return out;
}

/** A pseudonym stays as it is: scrubbing twice gives what scrubbing once gave. */
const PSEUDONYM_EMAIL = /@example\.invalid$/;
const PSEUDONYM_PHONE = /^\+1555\d{7}$/;

/**
 * Text with credentials masked and e-mail addresses and phone numbers given their pseudonyms, by
 * shape. A bare run of digits is left alone here: in a reply it is far more often an id than a
 * phone number, and a replay must answer with the dealer's ids.
 */
export function pseudonymizeText(text: string): string {
  const out = maskCredentials(text);
  if (!/[@\d]/.test(out)) return out;
  return out
    .replace(EMAIL, (m) => (PSEUDONYM_EMAIL.test(m) ? m : pseudonym('email', m)))
    .replace(PHONE_LIKE, (m) => (isPhone(m) && !/^\d+$/.test(m) && !PSEUDONYM_PHONE.test(m) ? pseudonym('phone', m) : m));
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

/**
 * A reply fit to be kept: secret-named members dropped, the request's own secrets masked wherever
 * they are echoed, every personal value the request named replaced by its pseudonym, and the rest
 * scrubbed by shape (`pseudonymizeText`).
 */
export function scrubReply(value: unknown, replaced: Map<string, string>, known: KnownValues = NO_KNOWN_VALUES, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, replaced, known);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((v) => scrubReply(v, replaced, known, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = scrubReply(v, replaced, known, depth + 1);
  return out;
}

/**
 * Text fit to be kept: credentials masked, the request's own secrets masked, each personal value
 * replaced by its pseudonym where it stands as a whole word (a customer named "Al" leaves
 * "All-wheel drive" alone), then contacts by shape.
 */
export function scrubText(text: string, replaced: Map<string, string>, known: KnownValues = NO_KNOWN_VALUES): string {
  let out = maskSecrets(text, known);
  if (replaced.size) out = replaceValues(out, replaced, true);
  return pseudonymizeText(out);
}
