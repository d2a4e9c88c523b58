/**
 * Who a journal line belongs to. By default the buyer's address; with `--client-key header:NAME`
 * (or, when the flag is not given, the one header every rule of the scenario keys on) the value
 * of that header. A header value is often a credential (an API key), so it is never written as
 * it is: the journal, `/journal`, `/events` and the report see `key:` + 12 hex of an HMAC keyed
 * with a secret made at start. Equal values map to equal keys for the life of the process.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { firstHeaderValue } from '../protocol/header-value.js';

export const IP_CLIENT_KEY = 'ip';
const HEADER_PREFIX = 'header:';

/** A `key` as a rule or --client-key writes it: `ip`, `skill` or `header:NAME`. */
export type ClientKey = { kind: 'ip' } | { kind: 'skill' } | { kind: 'header'; header: string };

/** The one parser of a key spec; NAME is lower-cased, as Node gives header names. */
export function clientKey(spec: string | undefined): ClientKey {
  if (spec?.startsWith(HEADER_PREFIX)) return { kind: 'header', header: spec.slice(HEADER_PREFIX.length).toLowerCase() };
  return spec === 'skill' ? { kind: 'skill' } : { kind: 'ip' };
}

export interface ClientKeySource {
  /** `ip` or `header:NAME` (NAME lower-cased). */
  name: string;
  /** The header to read, when keyed by a header. */
  header?: string;
}

/** Who journal lines are attributed to: a header, else the address (a skill is no client). */
export function clientKeySource(spec: string | undefined): ClientKeySource {
  const key = clientKey(spec);
  return key.kind === 'header' ? { name: `${HEADER_PREFIX}${key.header}`, header: key.header } : { name: IP_CLIENT_KEY };
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
  clientOf(source: ClientKeySource, headers: IncomingHttpHeaders, ip: string): string {
    if (source.header === undefined) return ip;
    const value = firstHeaderValue(headers, source.header);
    return value === undefined ? `${source.header}:(none)` : this.hash(value);
  }
}
