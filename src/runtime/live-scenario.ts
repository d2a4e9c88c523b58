/**
 * The scenario in force and every way it changes: loaded and validated at start, adopted from a
 * fleet that already has one, swapped atomically (a request reads the decider once, so it never
 * sees half a swap), published to the other replicas and followed from them.
 */
import type { Decider, RuleStatus, ScenarioEngine } from '../engine/decision.js';
import { createEngine } from '../engine/engine.js';
import type { ChaosProxy } from '../proxy/server.js';
import type { StagingControls } from '../staging/controls.js';
import type { ChangeOptions } from '../control/surface.js';
import { formatProblem, type LoadResult, type Scenario } from '../scenario/load.js';
import { loadScenarioInput, ScenarioRejectedError, type ScenarioInput } from '../scenario/input.js';
import { loadScenarioSource, type ScenarioSource } from '../scenario/source.js';
import { Fleet, stateUrlOf } from '../state/fleet.js';
import type { CheckedOptions } from './types.js';

function checked(result: LoadResult): Scenario {
  if (!result.ok) throw new ScenarioRejectedError(result.problems.map(formatProblem));
  return result.scenario;
}

const validated = async (input: ScenarioInput): Promise<Scenario> => checked(await loadScenarioInput(input));

// What Redis holds is checked as an object: a JSON string there is refused, never read as a path.
const published = async (version: number, json: string): Promise<Scenario> =>
  checked(await loadScenarioSource({ json, name: `published scenario version ${version}` }));

/** A fleet's pass-through is published as JSON null (a TTL that ran out with nothing before it). */
const isPassThrough = (json: string) => json.trim() === 'null';

/** Rules of an engine's scenario, counted without building every rule's status (with its sentences) as rules() does. */
export function ruleCount(engine: ScenarioEngine): number {
  return (engine.definition as Scenario).rules?.length ?? 0;
}

/** Where a swap takes effect, known once the proxy and the staging controls exist. */
export interface ScenarioTargets {
  /** What every request reads its decider from. */
  listener: { decider: Decider | undefined };
  /** Each dealer's proxy, whose profile follows the scenario's unless --profile fixed it. */
  proxies: () => Iterable<ChaosProxy>;
  staging: StagingControls;
}

type Settings = Pick<CheckedOptions, 'seed' | 'allowHeaderFaults' | 'replicaId' | 'profile'> & {
  log: (line: string) => void;
  onFaultOverflow: (rule: string) => void;
};

export class LiveScenario {
  /** The engine deciding requests now; undefined is pass-through. */
  engine: ScenarioEngine | undefined;
  private targets: ScenarioTargets | undefined;

  private constructor(
    private readonly settings: Settings,
    /** The shared store and this replica's place in it (fleet mode only). */
    readonly fleet: Fleet | undefined,
  ) {}

  /** Loads the run's own scenario and, in a fleet, adopts the one already published, which wins. */
  static async start(opts: CheckedOptions, env: NodeJS.ProcessEnv, hooks: Pick<Settings, 'log' | 'onFaultOverflow'>): Promise<LiveScenario> {
    const stateUrl = stateUrlOf(opts.state, env);
    const own = opts.scenario !== undefined ? await validated(opts.scenario) : undefined;
    const fleet = stateUrl !== undefined ? await Fleet.start(stateUrl, opts.replicaId, opts.state === undefined) : undefined;
    const live = new LiveScenario(
      { ...hooks, seed: opts.seed, allowHeaderFaults: opts.allowHeaderFaults, replicaId: opts.replicaId, profile: opts.profile },
      fleet,
    );
    try {
      const adopted = await fleet?.adopt(own);
      live.engine = adopted
        ? isPassThrough(adopted.json)
          ? undefined
          : live.engineFor(await published(adopted.version, adopted.json), adopted.version)
        : own && live.engineFor(own);
    } catch (err) {
      await fleet?.close();
      throw err;
    }
    return live;
  }

  /** Where swaps take effect from now on. */
  attach(targets: ScenarioTargets): void {
    this.targets = targets;
  }

  /** The lever is asked first (a refused change costs no work); the scenario is validated before it is published. */
  use(input: ScenarioInput, change?: ChangeOptions): Promise<ScenarioEngine> {
    return this.change(() => validated(input), change);
  }

  replace(source: ScenarioSource, change?: ChangeOptions): Promise<ScenarioEngine> {
    return this.change(async () => checked(await loadScenarioSource(source)), change);
  }

  /** Puts a definition back in force (null: pass-through), publishing it in a fleet; the staging controls' undo. */
  async restore(definition: unknown): Promise<void> {
    if (definition === null || definition === undefined) {
      await this.fleet?.publish(null as unknown as Scenario);
      this.clear();
    } else {
      const scenario = await validated(definition as Scenario);
      this.swap(this.engineFor(scenario, await this.fleet?.publish(scenario)));
    }
  }

  /** Another replica published a scenario: it is validated here too, then swapped in. */
  async follow(): Promise<void> {
    await this.fleet?.follow(
      async (version, json) => {
        try {
          if (isPassThrough(json)) return this.clear();
          this.swap(this.engineFor(await published(version, json), version));
        } catch (err) {
          // One line: the problems, each already naming where it is.
          const problems = err instanceof ScenarioRejectedError ? err.problems.join('; ') : (err as Error).message;
          this.settings.log(`published scenario version ${version} refused, the running scenario stays: ${problems}`);
        }
      },
      () => this.engine?.definition,
    );
  }

  /** The scenario in force (its definition and fleet version), or undefined for pass-through. */
  current(): { definition: unknown; name: string; version?: number } | undefined {
    const engine = this.engine;
    return engine ? { definition: engine.definition, name: engine.name, version: engine.version } : undefined;
  }

  setRule(id: string, enabled: boolean): RuleStatus | undefined {
    const engine = this.engine;
    return engine?.setEnabled(id, enabled) ? engine.rules().find((r) => r.id === id) : undefined;
  }

  ruleEnabled(id: string): boolean | undefined {
    return this.engine?.rules().find((r) => r.id === id)?.enabled;
  }

  private engineFor(scenario: Scenario, version?: number): ScenarioEngine {
    const { seed, allowHeaderFaults, onFaultOverflow, replicaId } = this.settings;
    return createEngine(scenario, {
      seed,
      allowHeaderFaults,
      onFaultOverflow,
      replicaId,
      ...(this.fleet && version !== undefined ? this.fleet.engineOptions(scenario, version) : {}),
    });
  }

  private async change(load: () => Promise<Scenario>, change: ChangeOptions = {}): Promise<ScenarioEngine> {
    const staging = this.attached().staging;
    const ttlMs = staging.admitScenario(change);
    const scenario = await load();
    const previous = this.engine && { definition: this.engine.definition, name: this.engine.name };
    const next = this.swap(this.engineFor(scenario, await this.fleet?.publish(scenario)));
    await staging.scenarioChanged(previous, ttlMs, change.actor);
    return next;
  }

  private swap(next: ScenarioEngine): ScenarioEngine {
    const { listener, proxies, staging } = this.attached();
    // One assignment: a request reads the decider once, so it never sees half a swap.
    this.engine = next;
    listener.decider = next;
    staging.scenarioSwapped((next.definition as Scenario).guardrails);
    // A scenario's own profile applies unless --profile fixed one for the whole run.
    if (this.settings.profile === undefined) for (const p of proxies()) p.profile.configure(next.profile ?? 'auto', 'scenario');
    this.settings.log(
      `scenario ${next.name} loaded (seed ${next.seed}, ${ruleCount(next)} rules${next.version !== undefined ? `, fleet version ${next.version}` : ''})`,
    );
    return next;
  }

  /** Back to pass-through: no scenario in force. */
  private clear(): void {
    const { listener, staging } = this.attached();
    this.engine = undefined;
    listener.decider = undefined;
    staging.scenarioSwapped(undefined);
    this.settings.log('no scenario: every request is forwarded untouched');
  }

  private attached(): ScenarioTargets {
    if (!this.targets) throw new Error('the scenario changed before the proxy was ready');
    return this.targets;
  }
}
