/**
 * A zoo member as a buyer: plain fetch against the proxy (no SDK, so every header, id and byte is
 * its own), one session per run (`x-aap-chaos-session`). The same shopping trip for every member —
 * ten searches (the first one sloppy: a string year and a page of 5 000), three vehicle lookups (a
 * sold VIN, two listed ones), two leads — and every error handled the way its parameters say.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash, randomUUID } from 'node:crypto';
import { readAapError } from '../../src/buyer/index.js';
import { AAP_CODE_TABLE, VALIDATION_CODES, isAapCode, type AapCode } from '../../src/protocol/codes.js';
import { SeededRandom } from '../../src/common/random.js';
import type { Member } from './members.js';

export interface Trip {
  /** The proxy's base URL. */
  url: string;
  session: string;
  /** Two VINs the mock dealer lists, and one it sold. */
  goodVins: readonly [string, string];
  soldVin: string;
  /** Told of every request the proxy answered (the harness waits for that many journal lines). */
  onSend?: () => void;
  /** By JSON-RPC id (as text): when the buyer sent each request and read its reply, on its own clock. */
  clock?: Map<string, { sentAt: number; readAt?: number }>;
}

type Data = Record<string, unknown>;

/** What the buyer made of a failed call. */
interface Failure {
  transport: boolean;
  rpc?: number;
  code?: string;
  /** What the payload (as this buyer found it) said; undefined when it found none. */
  retryable?: boolean;
  hintMs?: number;
  hintSeconds?: number;
  listed: string[];
  extensionUri?: string;
}

const SLOPPY_SEARCH: Data = { filters: { make: ['Toyota'], year_min: '2020' }, pagination: { skip: 0, limit: 5000 } };
const OTHER_SEARCHES: Data[] = [
  { filters: { condition: ['used'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { make: ['Ford'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { condition: ['new'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { body: ['suv'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { price_max: 30000 }, pagination: { skip: 0, limit: 5 } },
  { filters: { fuel: ['electric'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { make: ['Chevrolet'] }, pagination: { skip: 0, limit: 5 } },
  { filters: { mileage_max: 50000 }, pagination: { skip: 0, limit: 5 } },
];
const FIRST_SEARCH: Data = { filters: { make: ['Honda'] }, pagination: { skip: 0, limit: 5 } };

const GONE_CODES = new Set(['VEHICLE_UNAVAILABLE', 'VEHICLE_NOT_FOUND']);
const MAX_RETRIES = 4;
/** A hammering buyer has no real bound. */
const AT_ONCE_MAX_RETRIES = 8;
/** Changed requests (fixes, new keys) a call may make before it gives up. */
const MAX_SENDS = 12;
const BASE_MS = 200;
/** Long enough never to end a call on a busy machine: a timeout would be a retry the oracle does not foresee. */
const TIMEOUT_MS = 300_000;

const mediaSlug = (skill: string) => (skill === 'inventory.vehicle' ? 'vehicle-detail' : skill.replace('.', '-'));

/** Runs every item through `fn`, `width` at a time, in order. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Removes the member a JSON Pointer names; true when there was one. */
function removeAt(data: Data, pointer: string): boolean {
  const tokens = pointer.split('/').slice(1);
  let node: unknown = data;
  for (const token of tokens.slice(0, -1)) node = node !== null && typeof node === 'object' ? (node as Data)[token] : undefined;
  const last = tokens.at(-1);
  if (last === undefined || node === null || typeof node !== 'object' || !(last in (node as Data))) return false;
  delete (node as Data)[last];
  return true;
}

export class ZooBuyer {
  private readonly extensions: string[] = [];
  private readonly quietUntil = new Map<string, number>();
  private readonly gone = new Set<string>();
  private counter = 0;

  constructor(
    private readonly m: Member,
    private readonly trip: Trip,
  ) {}

  async shop(): Promise<void> {
    // The first search (the sloppy one, which a validation error is about) learns the dealer's header
    // policy, so the first two go alone; the rest of the trip goes `concurrency` requests at a time.
    await this.call('inventory.search', SLOPPY_SEARCH);
    await this.call('inventory.search', FIRST_SEARCH);
    const others = this.m.reversed ? [...OTHER_SEARCHES].reverse() : OTHER_SEARCHES;
    await pool(others, this.m.concurrency, (data) => this.call('inventory.search', data));
    const { soldVin, goodVins } = this.trip;
    await this.call('inventory.vehicle', { vin: soldVin });
    await pool(goodVins, this.m.concurrency, (vin) => this.call('inventory.vehicle', { vin }));
    for (const n of [1, 2]) await this.call('lead.submit', this.lead(n));
  }

  private lead(n: number): Data {
    const now = Date.now();
    const lead: Data = {
      customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', preferred_contact: 'email' },
      consent: {
        granted_at: this.m.noise ? new Date(now - 60_000).toISOString() : '2026-01-02T10:00:00Z',
        allowed_channels: ['email'],
        consent_text: 'I agree to be contacted about this vehicle.',
        scope: ['lead_submission'],
      },
      source_agent: { name: 'zoo-buyer', url: 'https://buyer.example' },
      vehicle_of_interest: { vin: this.trip.goodVins[0] },
      message: this.m.noise ? `Lead ${n}, asked at ${new Date(now).toISOString()}` : `Lead ${n}`,
    };
    if (this.m.idempotency !== 'none') lead.idempotency_key = this.newKey(n);
    return lead;
  }

  private newKey(n: number | string): string {
    return this.m.noise ? randomUUID() : `${this.m.id}-lead-${n}-${++this.counter}`;
  }

  /** One skill call with everything the member does about its failures. */
  private async call(skill: string, first: Data): Promise<void> {
    let data = structuredClone(first);
    if (skill === 'inventory.vehicle' && this.gone.has(String(data.vin))) return;
    let retries = 0;
    for (let sends = 0; sends < MAX_SENDS; sends++) {
      await this.quiet(skill);
      if (skill === 'lead.submit' && this.m.idempotency === 'fresh') data.idempotency_key = this.newKey('fresh');
      const carried = [...this.extensions];
      const failure = await this.send(skill, data);
      if (failure === undefined) return;
      if (failure.rpc === -32008) {
        const uri = failure.extensionUri;
        if (this.m.activation !== 'activates' || uri === undefined || carried.includes(uri)) return;
        if (!this.extensions.includes(uri)) this.extensions.push(uri);
        continue;
      }
      if (failure.rpc === -32009) return; // its version is what it is
      if (!this.retryable(failure)) {
        const changed = this.afterRefusal(skill, data, failure);
        if (changed === undefined) return;
        data = changed;
        continue;
      }
      const hint =
        this.m.hint === 'ms' ? failure.hintMs : this.m.hint === 'seconds' && failure.hintSeconds !== undefined ? failure.hintSeconds * 1000 : undefined;
      if (retries++ >= (this.m.retry === 'at-once' ? AT_ONCE_MAX_RETRIES : MAX_RETRIES)) return;
      if (hint !== undefined) this.holdSkill(skill, hint + 20);
      else if (this.m.retry === 'none') return;
      else await sleep(this.backoffMs(skill, data, retries - 1));
    }
  }

  /** Whose retryable the member follows: the dealer's, or the code's table default. */
  private retryable(f: Failure): boolean {
    if (f.transport) return true; // no answer: it may not have happened
    if (this.m.retryable === 'table' && isAapCode(f.code)) return AAP_CODE_TABLE[f.code as AapCode].retryable;
    return f.retryable ?? false;
  }

  /** A changed request after a refusal, or undefined to give up on it. */
  private afterRefusal(skill: string, data: Data, f: Failure): Data | undefined {
    if (skill === 'inventory.vehicle' && f.code !== undefined && GONE_CODES.has(f.code)) this.gone.add(String(data.vin));
    if (f.code !== undefined && VALIDATION_CODES.has(f.code as AapCode) && f.listed.length > 0) {
      if (this.m.validation === 'give-up') return undefined;
      const fixed = structuredClone(data);
      const places = this.m.validation === 'fix-one' ? f.listed.filter((p) => removeAt(structuredClone(data), p)).slice(0, 1) : f.listed;
      const changed = places.map((p) => removeAt(fixed, p)).some(Boolean);
      return changed ? fixed : undefined; // nothing it could fix: give up
    }
    if (f.code === 'IDEMPOTENCY_CONFLICT') {
      if (this.m.idempotency === 'fresh-after-conflict') return { ...data, idempotency_key: this.newKey('after-conflict') };
      if (this.m.idempotency === 'reuse-after-conflict') return data;
    }
    return undefined;
  }

  /** Every call of the skill waits until then (a retry hint binds the skill, not one request). */
  private holdSkill(skill: string, ms: number): void {
    this.quietUntil.set(skill, Math.max(this.quietUntil.get(skill) ?? 0, Date.now() + ms));
  }

  private async quiet(skill: string): Promise<void> {
    for (let left = (this.quietUntil.get(skill) ?? 0) - Date.now(); left > 0; left = (this.quietUntil.get(skill) ?? 0) - Date.now()) await sleep(left);
  }

  /** The wait before retry n (from 0); jitter drawn from a generator seeded by the member, the request and n. */
  private backoffMs(skill: string, data: Data, n: number): number {
    const { idempotency_key: _key, ...request } = data;
    const digest = createHash('sha256')
      .update(`${this.m.seed}|${skill}|${JSON.stringify(request)}|${n}`)
      .digest();
    const u = new SeededRandom(digest.readUInt32BE(0)).next();
    const step = BASE_MS * 2 ** n;
    switch (this.m.retry) {
      case 'at-once':
        return 0;
      case 'fixed':
        return 3 * BASE_MS;
      case 'exponential':
        return step;
      case 'full-jitter':
        return u * step;
      case 'equal-jitter':
        return step / 2 + (u * step) / 2;
      case 'capped':
        return Math.min(2 * BASE_MS, step);
      default:
        return 0;
    }
  }

  /** One attempt: undefined on success, else what failed. */
  private async send(skill: string, data: Data): Promise<Failure | undefined> {
    const n = ++this.counter;
    const slug = mediaSlug(skill);
    const body = {
      jsonrpc: '2.0',
      id: this.m.noise ? randomUUID() : n,
      method: 'SendMessage',
      params: {
        message: {
          messageId: this.m.noise ? randomUUID() : `${this.m.id}-m-${n}`,
          role: 'ROLE_USER',
          parts: [{ data: { type: `${skill}.request`, ...data }, mediaType: `application/vnd.autoagent.${slug}-request+json` }],
        },
        configuration: { acceptedOutputModes: [`application/vnd.autoagent.${slug}-response+json`] },
      },
    };
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-aap-chaos-session': this.trip.session };
    if (this.m.version === '1.0') headers['a2a-version'] = '1.0';
    if (this.extensions.length > 0) headers['a2a-extensions'] = this.extensions.join(', ');
    if (this.m.noise) headers['x-buyer-trace'] = randomUUID();
    const seen = { sentAt: Date.now() } as { sentAt: number; readAt?: number };
    this.trip.clock?.set(String(body.id), seen);
    let text: string;
    try {
      const res = await fetch(`${this.trip.url}/a2a`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
      this.trip.onSend?.(); // a reply began: the proxy has it, and will journal it
      text = await res.text();
    } catch {
      return { transport: true, listed: [] };
    } finally {
      seen.readAt = Date.now();
    }
    let reply: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
    try {
      reply = JSON.parse(text);
    } catch {
      return { transport: true, listed: [] };
    }
    if (reply?.result !== undefined) return undefined;
    if (reply?.error === undefined || typeof reply.error.code !== 'number') return { transport: true, listed: [] };
    return this.m.reading === 'type' ? byType(reply) : byPosition(reply.error);
  }
}

/** The way the project's buyers read errors: readAapError finds the payload by @type. */
function byType(envelope: unknown): Failure {
  const r = readAapError(envelope);
  const data = (envelope as { error?: { data?: unknown } }).error?.data;
  const entries = Array.isArray(data) ? data : [data];
  const payload = entries.find((e) => e !== null && typeof e === 'object' && (e as Data).type === 'aap.error') as Data | undefined;
  const seconds = (payload?.details as Data | undefined)?.retry_after_seconds;
  return {
    transport: false,
    rpc: r.jsonRpcCode,
    code: r.code,
    retryable: r.retryable,
    hintMs: r.retryAfterMs,
    hintSeconds: typeof seconds === 'number' ? seconds : undefined,
    listed: (r.errors ?? []).map((e) => e.instanceLocation),
    extensionUri: r.extensionUri,
  };
}

/** The flaw: the payload is "the last entry of data" (true of a tidy 2.0 envelope, and of 1.3's object). */
function byPosition(error: { code?: unknown; message?: unknown; data?: unknown }): Failure {
  const data = error.data;
  const entry = (Array.isArray(data) ? data[data.length - 1] : data) as Data | undefined;
  const details = (entry?.details ?? {}) as Data;
  const metadata = (entry?.metadata ?? {}) as Data;
  const uriInMessage = /https?:\/\/[^\s'"),]+/.exec(String(error.message ?? ''))?.[0]?.replace(/\.$/, '');
  return {
    transport: false,
    rpc: error.code as number,
    code: typeof entry?.code === 'string' ? entry.code : undefined,
    retryable: typeof entry?.retryable === 'boolean' ? entry.retryable : undefined,
    hintMs: typeof details.retry_after_ms === 'number' ? details.retry_after_ms : undefined,
    hintSeconds: typeof details.retry_after_seconds === 'number' ? details.retry_after_seconds : undefined,
    listed: Array.isArray(details.errors) ? details.errors.map((e) => String((e as Data).instanceLocation)) : [],
    extensionUri: typeof metadata.extensionUri === 'string' ? metadata.extensionUri : uriInMessage,
  };
}
