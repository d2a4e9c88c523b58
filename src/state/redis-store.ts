/**
 * The Redis state store (`--state redis://host:port/db`), through ioredis. Every call is bounded
 * (a command timeout, no offline queue: while Redis is away a call fails at once instead of
 * waiting); the client reconnects by itself, and `available()` says whether shared state answers
 * now. A second connection subscribes to the scenario channel.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PUBLISH_SCRIPT, WALK_SCRIPT } from './lua.js';
import { displayUrl } from '../common/display-url.js';
import type { SharedRuleStore, WalkRequest, WalkResult, StepVerdict } from '../engine/shared-store.js';

/** How long one Redis call may take before the rules that needed it are suspended for that request. */
export const REDIS_CALL_TIMEOUT_MS = 250;
/** How long the first connection may take at start. */
const CONNECT_TIMEOUT_MS = 3_000;
/** A fault slot whose release never arrived (its replica died) is given back after this. */
export const SLOT_LEASE_MS = 10 * 60_000;
/** Rule counters of an idle session expire with it, as the memory store forgets idle sessions. */
const COUNTER_TTL_MS = 10 * 60_000;
/** Keys deleted per SCAN step of a reset, and steps at most. */
const FORGET_BATCH = 500;
const FORGET_MAX_STEPS = 1_000;

export const KEY_PREFIX = 'aap-chaos';
const VERDICTS: StepVerdict[] = ['not_fired', 'fired', 'skipped_max_active'];

/** A Redis URL that cannot be used, or a server that does not answer at start. */
export class StateStoreError extends Error {
  override name = 'StateStoreError';
}

type ScriptedRedis = Redis & {
  aapWalk(...args: Array<string | number>): Promise<number[]>;
  aapPublish(...args: Array<string | number>): Promise<[number, string]>;
};

function clientFor(RedisClient: typeof Redis, url: string, lazy: boolean): ScriptedRedis {
  const client = new RedisClient(url, {
    lazyConnect: lazy,
    commandTimeout: REDIS_CALL_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect forever, at most once a second: the proxy recovers by itself when Redis is back.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  }) as ScriptedRedis;
  // Errors are reported through available() and the journal; an unhandled 'error' must not crash.
  client.on('error', () => {});
  // EVALSHA, falling back to EVAL when a restarted Redis has forgotten the script.
  client.defineCommand('aapWalk', { lua: WALK_SCRIPT });
  client.defineCommand('aapPublish', { lua: PUBLISH_SCRIPT, numberOfKeys: 1 });
  return client;
}

/** Checks a --state value: redis://host:port/db (or rediss://). */
export function checkRedisUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StateStoreError(`${displayUrl(url)} is not a URL (use memory, or redis://host:port/db)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new StateStoreError(`${displayUrl(url)} is neither memory nor a redis:// URL`);
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new StateStoreError(`${displayUrl(url)}: the database "${db}" is not a number`);
}

export class RedisStateStore implements SharedRuleStore {
  readonly url: string;
  suspendedRequests = 0;
  private subscriber: Redis | undefined;
  private closed = false;

  private constructor(
    url: string,
    private readonly client: ScriptedRedis,
  ) {
    this.url = displayUrl(url);
  }

  /** Connects, or throws one line naming the URL when Redis does not answer. */
  static async connect(url: string, label = '--state'): Promise<RedisStateStore> {
    checkRedisUrl(url);
    // Loaded here: a proxy without --state redis:// never pays for the client's modules.
    const { Redis: RedisClient } = await import('ioredis');
    const client = clientFor(RedisClient, url, true);
    let lastError: Error | undefined;
    client.on('error', (e: Error) => (lastError ??= e));
    // The first PING is part of connecting: it has the connect bound, not one call's 250 ms, which a
    // process busy loading its modules can overrun with the answer already waiting in the socket
    // (timers run before the socket is read).
    client.options.commandTimeout = undefined;
    try {
      await Promise.race([
        client.connect().then(() => client.ping()),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS).unref()),
      ]);
      client.options.commandTimeout = REDIS_CALL_TIMEOUT_MS;
    } catch (err) {
      client.disconnect();
      const cause = lastError ?? (err as Error);
      throw new StateStoreError(`${label.endsWith('=') ? label : `${label} `}${displayUrl(url)}: cannot reach Redis (${cause.message || String(cause)})`);
    }
    return new RedisStateStore(url, client);
  }

  /** The command connection, for the fleet's shared controls (fleet-control.ts). */
  connection(): Redis {
    return this.client;
  }

  available(): boolean {
    return this.client.status === 'ready';
  }

  async walk(request: WalkRequest): Promise<WalkResult> {
    const { steps } = request;
    const keys: string[] = [];
    const args: Array<string | number> = [steps.length, request.maxActive ?? -1, SLOT_LEASE_MS, request.token, COUNTER_TTL_MS];
    for (const s of steps) {
      keys.push(s.counterKey, s.windowKey);
      args.push(s.stateful ? 1 : 0, s.after, s.every, s.times, s.localOk ? 1 : 0, s.rateLimit, s.rateWindowMs, s.answers ? 1 : 0, s.hasModifiers ? 1 : 0);
    }
    keys.push(request.activeKey);
    const reply = await this.client.aapWalk(keys.length, ...keys, ...args);
    const result: WalkResult = { holdsSlot: reply[0] === 1, steps: [] };
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const retry = reply[i + 1]!;
      result.steps.push({ verdict: VERDICTS[reply[i]!] ?? 'not_fired', ...(retry > 0 ? { retryAfterMs: retry } : {}) });
    }
    return result;
  }

  release(activeKey: string, token: string): void {
    if (!this.available()) return; // the lease gives it back
    this.client.zrem(activeKey, token).catch(() => {});
  }

  async forget(prefix: string): Promise<void> {
    if (!this.available()) return; // its keys expire with the idle time
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    await (async () => {
      let cursor = '0';
      for (let step = 0; step < FORGET_MAX_STEPS; step++) {
        const [next, found] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', FORGET_BATCH);
        if (found.length > 0) await this.client.del(...found);
        cursor = next;
        if (cursor === '0') break;
      }
    })().catch(() => {});
  }

  noteSuspended(): void {
    this.suspendedRequests++;
  }

  /** A fresh token for one request's slot and hits. */
  static token(): string {
    return randomUUID();
  }

  /** The fleet's secret for client-key hashes: made by the first replica, read by the others. */
  async sharedSecret(): Promise<Buffer> {
    const key = `${KEY_PREFIX}:client-key-secret`;
    await this.client.set(key, randomBytes(32).toString('hex'), 'NX');
    const hex = await this.client.get(key);
    return Buffer.from(hex ?? '', 'hex');
  }

  /**
   * Publishes a scenario (its JSON) to the fleet; with `onlyIfNone`, keeps the one already
   * published. Returns the version and the JSON now in force.
   */
  async publishScenario(json: string, onlyIfNone: boolean, newestSeen: number): Promise<{ version: number; json: string }> {
    const [version, inForce] = await this.client.aapPublish(`${KEY_PREFIX}:scenario`, json, `${KEY_PREFIX}:scenario`, onlyIfNone ? '1' : '0', newestSeen);
    return { version: Number(version), json: inForce };
  }

  /** Reads the published scenario. */
  async publishedScenario(): Promise<{ version: number; json: string } | undefined> {
    const [version, json] = await this.client.hmget(`${KEY_PREFIX}:scenario`, 'version', 'json');
    return version && json ? { version: Number(version), json } : undefined;
  }

  /**
   * Calls `onVersion` with each version another replica publishes, and `onReady` each time the
   * subscription is (re)established (a publication may have been missed meanwhile). The
   * subscriber reconnects by itself.
   */
  async subscribeScenario(onVersion: (version: number) => void, onReady: () => void): Promise<void> {
    const sub = this.client.duplicate({ lazyConnect: true, enableOfflineQueue: true, commandTimeout: undefined });
    sub.on('error', () => {});
    this.subscriber = sub;
    sub.on('message', (_channel: string, message: string) => onVersion(Number(message)));
    await sub.connect();
    sub.on('ready', onReady);
    this.client.on('ready', onReady);
    await sub.subscribe(`${KEY_PREFIX}:scenario`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscriber?.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
