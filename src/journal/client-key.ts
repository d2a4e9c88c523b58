/**
 * Who a journal line belongs to. By default the buyer's address; with `--client-key header:NAME`
 * (or, when the flag is not given, the one header every rule of the scenario keys on) the value
 * of that header. A header value is often a credential (an API key), so it is never written as
 * it is: the journal, `/journal`, `/events` and the report see `key:` + 12 hex of an HMAC keyed
 * with a secret made at start. Equal values map to equal keys for the life of the process.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const IP_CLIENT_KEY = 'ip';
const HEADER_PREFIX = 'header:';

export interface ClientKeySource {
  /** `ip` or `header:NAME` (NAME lower-cased). */
  name: string;
  /** The header to read, when keyed by a header. */
  header?: string;
}

export function clientKeySource(spec: string | undefined): ClientKeySource {
  if (spec === undefined || !spec.startsWith(HEADER_PREFIX)) return { name: IP_CLIENT_KEY };
  const header = spec.slice(HEADER_PREFIX.length).toLowerCase();
  return { name: `${HEADER_PREFIX}${header}`, header };
}

/**
 * The header all rules of a scenario key on, as a `header:NAME` spec; undefined when the rules
 * key on different things, on the address or the skill, or when there are no rules.
 */
export function scenarioHeaderKey(definition: unknown): string | undefined {
  const rules = (definition as { rules?: { key?: unknown }[] } | undefined)?.rules;
  if (!Array.isArray(rules) || rules.length === 0) return undefined;
  const keys = new Set(rules.map((r) => (typeof r?.key === 'string' ? r.key.toLowerCase() : IP_CLIENT_KEY)));
  const [only] = keys;
  return keys.size === 1 && only.startsWith(HEADER_PREFIX) ? only : undefined;
}

/** Hashes header-derived client keys with a per-process secret. */
export class ClientKeyHasher {
  private readonly secret: Buffer;
  private readonly cache = new Map<string, string>();

  constructor(secret: Buffer = randomBytes(32)) {
    this.secret = secret;
  }

  hash(value: string): string {
    let key = this.cache.get(value);
    if (key === undefined) {
      key = `key:${createHmac('sha256', this.secret).update(value).digest('hex').slice(0, 12)}`;
      // Bounded: a buyer sending a new value on every request must not grow memory.
      if (this.cache.size >= 4096) this.cache.clear();
      this.cache.set(value, key);
    }
    return key;
  }

  /** The client of one request under `source`; a missing header is named, not hashed. */
  clientOf(source: ClientKeySource, headers: Record<string, string | string[] | undefined>, ip: string): string {
    if (source.header === undefined) return ip;
    const raw = headers[source.header];
    const value = Array.isArray(raw) ? raw[0] : raw;
    return value === undefined ? `${source.header}:(none)` : this.hash(value);
  }
}
