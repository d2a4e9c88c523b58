/**
 * Customer contact data and credentials in text a dealer wrote. A dealer's error reply may echo
 * what it refused (`"jane@example.com is not a valid e-mail"`, a phone number, the buyer's bearer
 * token); the journal keeps such replies, and a journal line must never hold a secret or a
 * customer's contact. E-mail addresses, phone numbers and bearer/basic credentials (and bare JWTs)
 * are replaced by a marker saying what was there.
 */

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const CREDENTIAL = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** Digits with the separators phone numbers are written with (not dots: versions and addresses). */
const PHONE_LIKE = /(?<![\w.+-])(?:\+\d|\(\d{1,4}\)|\d)[\d\s()-]{5,}\d(?![\w.])/g;
const DATE = /^\d{4}-\d{2}-\d{2}/;

/** Whether a run of digits and separators is a phone number rather than a date or an amount. */
function isPhone(match: string): boolean {
  const digits = match.replace(/\D/g, '').length;
  if (digits < 7 || digits > 15 || DATE.test(match)) return false;
  // A bare number is one only when as long as a number with its area code.
  return /^\d+$/.test(match) ? digits >= 10 : true;
}

/** The text with contacts and credentials replaced; the same string when there were none. */
export function redactContacts(text: string): string {
  // One cheap test first: most error messages hold neither a digit run, an @ nor a credential word.
  if (!/[@\d]|bearer|basic|token|eyJ/i.test(text)) return text;
  return text
    .replace(CREDENTIAL, '$1$2[redacted]')
    .replace(JWT, '[token redacted]')
    .replace(EMAIL, '[e-mail redacted]')
    .replace(PHONE_LIKE, (m) => (isPhone(m) ? '[phone redacted]' : m));
}

/** Deeper values are not looked into; they are replaced whole. */
const MAX_DEPTH = 32;

/** A copy of JSON data with every string (keys included) passed through `redactContacts`. */
export function redactContactsIn(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactContacts(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) return value.map((v) => redactContactsIn(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redactContacts(k)] = redactContactsIn(v, depth + 1);
  return out;
}
