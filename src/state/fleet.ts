/**
 * Fleet mode: replicas (and --workers) sharing one Redis. Connects the store, names this replica,
 * keys each scenario version's shared state, and publishes the scenario in force: a replica that
 * loads one publishes it (validated first, so a bad one never reaches the others), every other
 * replica validates it again and swaps, and they all show the same version in /status.
 */
import { hostname } from 'node:os';
import type { ScenarioEngine } from '../engine/decision.js';
import type { FleetEngineOptions } from '../engine/engine.js';
import type { Scenario } from '../scenario/types.generated.js';
import { KEY_PREFIX, RedisStateStore, StateStoreError } from './redis-store.js';
import type { StateStatus } from '../engine/shared-store.js';
import { ClientKeyHasher } from '../common/client-key.js';

/** The environment variable --state defaults to. */
export const STATE_ENV = 'AAP_CHAOS_STATE';

/** What /status shows without a shared store. */
export function memoryStateStatus(replica: string | undefined): StateStatus {
  return { store: 'memory', status: 'ready', suspended_requests: 0, ...(replica !== undefined ? { replica } : {}) };
}

/** The store a run asked for: the option, else AAP_CHAOS_STATE, else memory (undefined). */
export function stateUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const value = option ?? (env[STATE_ENV] || undefined);
  return value === undefined || value === 'memory' ? undefined : value;
}

export class Fleet {
  /** The newest scenario version this replica has seen published. */
  private latest = 0;
  /** Client keys in Redis key names, hashed as the journal hashes them, with the fleet's secret: the same buyer, the same name on every replica. */
  private readonly keyNames: ClientKeyHasher;

  private constructor(
    readonly store: RedisStateStore,
    readonly replica: string,
    /** Shared by the fleet: a buyer keyed by a header has one client key on every replica. */
    readonly clientKeySecret: Buffer,
  ) {
    this.keyNames = new ClientKeyHasher(clientKeySecret);
  }

  /** `fromEnv`: the URL came from AAP_CHAOS_STATE, which messages then name. */
  static async start(url: string, replicaId: string | undefined, fromEnv = false): Promise<Fleet> {
    const store = await RedisStateStore.connect(url, fromEnv ? `${STATE_ENV}=` : '--state');
    try {
      return new Fleet(store, replicaId ?? `${hostname()}-${process.pid}`, await store.sharedSecret());
    } catch (err) {
      await store.close();
      throw new StateStoreError(`${fromEnv ? `${STATE_ENV}=` : '--state '}${store.url}: ${(err as Error).message}`);
    }
  }

  /** Engine options for one published version: its shared keys start fresh. */
  engineOptions(scenario: Scenario, version: number): Pick<FleetEngineOptions, 'shared' | 'replicaId'> {
    const name = encodeURIComponent(scenario.scenario ?? 'unnamed');
    const keyName = (clientKey: string) => this.keyNames.hash(clientKey);
    return { replicaId: this.replica, shared: { store: this.store, namespace: `${KEY_PREFIX}:${name}:v${version}`, version, keyName } };
  }

  /**
   * At start: the scenario the fleet already runs wins; when none is published yet, `own` (this
   * replica's --scenario) is. Undefined when neither exists.
   */
  async adopt(own: Scenario | undefined): Promise<{ version: number; json: string } | undefined> {
    const found = own !== undefined ? await this.store.publishScenario(JSON.stringify(own), true, this.latest) : await this.store.publishedScenario();
    if (!found) return undefined;
    this.latest = Math.max(this.latest, found.version);
    return found;
  }

  /** Publishes a validated scenario to every replica; returns its version. */
  async publish(scenario: Scenario): Promise<number> {
    const { version } = await this.store.publishScenario(JSON.stringify(scenario), false, this.latest).catch((err: Error) => {
      throw new StateStoreError(`scenario not published: the state store ${this.store.url} does not answer (${err.message}); the current scenario is kept`);
    });
    this.latest = Math.max(this.latest, version);
    return version;
  }

  /**
   * Calls `apply` with each scenario another replica publishes (its JSON, which the caller checks
   * as it checks any scenario from outside), newest only, in order. When the
   * connection comes back, a missed publication is caught up; and when Redis lost its data (a
   * restart without persistence), the scenario in force here (`current`) is published again,
   * unless another replica did so first.
   */
  async follow(apply: (version: number, json: string) => Promise<void>, current: () => unknown): Promise<void> {
    let queue = Promise.resolve();
    const enqueue = (step: () => Promise<void>) => {
      queue = queue.then(step).catch(() => {});
    };
    const catchUp = async (published: { version: number; json: string } | undefined) => {
      if (!published || published.version <= this.latest) return;
      this.latest = published.version;
      await apply(published.version, published.json);
    };
    await this.store.subscribeScenario(
      (version) =>
        enqueue(async () => {
          if (version > this.latest) await catchUp(await this.store.publishedScenario());
        }),
      () =>
        enqueue(async () => {
          const published = await this.store.publishedScenario();
          const definition = current();
          if (published || definition === undefined) return catchUp(published);
          await catchUp(await this.store.publishScenario(JSON.stringify(definition), true, this.latest));
        }),
    );
  }

  status(engine: ScenarioEngine | undefined): StateStatus {
    return {
      store: 'redis',
      url: this.store.url,
      status: this.store.available() ? 'ready' : 'suspended',
      suspended_requests: this.store.suspendedRequests,
      replica: this.replica,
      ...(engine?.version !== undefined ? { scenario_version: engine.version } : {}),
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
