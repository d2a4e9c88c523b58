/**
 * What a fleet shares for running in shared staging, next to the scenario: the safety lever, the
 * time to live of the scenario in force, and the one audit chain. Each lives under one Redis key;
 * a change is announced on the `aap-chaos:control` channel and every replica reads the key again,
 * so a lever pulled on one replica reaches the others as fast as Redis delivers a message, and a
 * replica that (re)connects reads the current state instead of trusting what it missed.
 */
import { boundReached } from '../common/bound-counts.js';
import type { Redis } from 'ioredis';
import { chainEntry, GENESIS, type AuditEntry, type AuditFacts } from '../staging/audit.js';
import type { ControlTopic, SharedStaging, SharedTtl } from '../staging/shared.js';
import { KEY_PREFIX } from './redis-store.js';

const LEVER_KEY = `${KEY_PREFIX}:lever`;
const TTL_KEY = `${KEY_PREFIX}:ttl`;
const AUDIT_STREAM = `${KEY_PREFIX}:audit`;
const AUDIT_HEAD = `${KEY_PREFIX}:audit:head`;
const CHANNEL = `${KEY_PREFIX}:control`;
/** The shared audit stream keeps about this many entries. */
const AUDIT_MAX = 100_000;
/** Optimistic retries of one audit append racing other replicas. */
const AUDIT_RETRIES = 50;

export class FleetControl implements SharedStaging {
  private subscriber: Redis | undefined;
  private auditConnection: Redis | undefined;
  private auditQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: Redis) {}

  async readLever<T>(): Promise<T | undefined> {
    const json = await this.client.get(LEVER_KEY);
    return json ? (JSON.parse(json) as T) : undefined;
  }

  async writeLever(state: unknown): Promise<void> {
    await this.client.set(LEVER_KEY, JSON.stringify(state));
    await this.client.publish(CHANNEL, 'lever');
  }

  async readTtl(): Promise<unknown> {
    const json = await this.client.get(TTL_KEY);
    if (json === null) return undefined;
    try {
      return JSON.parse(json) as unknown;
    } catch {
      return json;
    }
  }

  async writeTtl(ttl: SharedTtl | undefined): Promise<void> {
    if (ttl) await this.client.set(TTL_KEY, JSON.stringify(ttl));
    else await this.client.del(TTL_KEY);
    await this.client.publish(CHANNEL, 'ttl');
  }

  /** True for exactly one replica per version: the one that carries out that TTL's revert. */
  async claimRevert(version: number): Promise<boolean> {
    return (await this.client.set(`${TTL_KEY}:revert:${version}`, '1', 'PX', 600_000, 'NX')) === 'OK';
  }

  /** Calls `onChange` with each topic announced, and with every topic whenever the subscription is (re)made. */
  async subscribe(onChange: (topic: ControlTopic) => void): Promise<void> {
    const sub = this.client.duplicate({ lazyConnect: true, enableOfflineQueue: true, commandTimeout: undefined });
    sub.on('error', () => {});
    this.subscriber = sub;
    sub.on('message', (_channel: string, message: string) => {
      if (message === 'lever' || message === 'ttl') onChange(message);
    });
    await sub.connect();
    sub.on('ready', () => {
      onChange('lever');
      onChange('ttl');
    });
    await sub.subscribe(CHANNEL);
  }

  /**
   * Appends to the fleet's chain: the head (last hash and seq) is watched, so two replicas
   * appending at once never link to the same entry; the loser reads the new head and tries again.
   */
  append(facts: AuditFacts, ts: string, replica: string | null): Promise<AuditEntry> {
    const run = async (): Promise<AuditEntry> => {
      const redis = (this.auditConnection ??= this.client.duplicate({ enableOfflineQueue: true }).on('error', () => {}));
      for (let attempt = 0; attempt < AUDIT_RETRIES; attempt++) {
        await redis.watch(AUDIT_HEAD);
        const [hash, seq] = await redis.hmget(AUDIT_HEAD, 'hash', 'seq');
        const entry = chainEntry(facts, { ts, replica, seq: Number(seq ?? 0) + 1, prev: hash ?? GENESIS });
        const done = await redis
          .multi()
          .hset(AUDIT_HEAD, 'hash', entry.hash, 'seq', String(entry.seq))
          .xadd(AUDIT_STREAM, 'MAXLEN', '~', String(AUDIT_MAX), '*', 'entry', JSON.stringify(entry))
          .exec();
        if (!done) continue;
        if (entry.seq > AUDIT_MAX) boundReached('audit_stream');
        return entry;
      }
      throw new Error(`${AUDIT_RETRIES} replicas' entries raced this one`);
    };
    const appended = this.auditQueue.then(run, run);
    this.auditQueue = appended.catch(() => {});
    return appended;
  }

  async recent(limit: number): Promise<AuditEntry[]> {
    const rows = await this.client.xrevrange(AUDIT_STREAM, '+', '-', 'COUNT', limit);
    return rows.reverse().map(([, fields]) => JSON.parse(fields[1]!) as AuditEntry);
  }

  close(): void {
    this.subscriber?.disconnect();
    this.auditConnection?.disconnect();
  }
}
