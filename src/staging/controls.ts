/**
 * Running in shared staging: what the runtime adds around every change of the fault set — the
 * audit record, the time to live, the safety lever that refuses changes while pulled, and the
 * guardrails that pull it. The runtime keeps the engine and the proxy; this file decides when a
 * change may happen, records it, and undoes it when its time runs out.
 */
import type { RotationSettings } from '../common/rotating-file.js';
import type { RuleStatus } from '../engine/decision.js';
import type { JournalEntry, RequestObserver } from '../journal/entry.js';
import type { Guardrail } from '../scenario/types.generated.js';
import { AuditLog, scenarioSha, type AuditAction, type AuditEntry } from './audit.js';
import { GuardrailWatch, type GuardrailBreach } from './guardrails.js';
import { SafetyLever, type LeverState } from './safety-lever.js';
import type { SharedStaging } from './shared.js';
import { checkSharedTtl, effectiveTtl, formatMs, TtlTimers, type TtlStatus } from './ttl.js';

/** Who asked for a change: the admin client (address, token fingerprint, name given) or the proxy itself. */
export interface Actor {
  remote: string | null;
  token: string | null;
  /** A name the caller gave (the lever's `by`). */
  by?: string;
}

export const PROXY_ITSELF: Actor = { remote: null, token: null };

/** How a runtime change was asked for. */
export interface ChangeOptions {
  actor?: Actor;
  /** Milliseconds after which the change is undone by itself. */
  ttlMs?: number;
}

/** A change refused while the safety lever is pulled. */
export class LeverPulledError extends Error {
  override name = 'LeverPulledError';
}

/** What the controls need of the runtime. */
export interface StagingHost {
  replica?: string;
  log(line: string): void;
  /** Where a change that is not a request is announced (/events). */
  hub: { notice(notice: { event: string; message: string; replica?: string }): void };
  metrics: { guardrailBreached(guardrail: string): void; fileRotated(file: 'audit'): void };
  /** The scenario in force (its definition and fleet version), or undefined for pass-through. */
  current(): { definition: unknown; name: string; version?: number } | undefined;
  /** Puts a definition back in force (null: pass-through), publishing it in a fleet; never refused by the lever. */
  restore(definition: unknown): Promise<void>;
  setRule(id: string, enabled: boolean): RuleStatus | undefined;
  /** Whether a rule of the scenario in force is enabled now; undefined when there is no such rule. */
  ruleEnabled(id: string): boolean | undefined;
  /** The lever moved here: faults stop (dry run) or may apply again. */
  leverMoved(state: LeverState): void;
}

export interface StagingOptions {
  auditFile?: string;
  auditRotation?: RotationSettings;
  maxTtlMs?: number;
  /** The fleet's shared lever, TTL and audit chain; absent without Redis. */
  shared?: SharedStaging;
}

const describeActor = (a: Actor): string => a.by ?? ([a.remote, a.token].filter(Boolean).join(' ') || 'the proxy');

export class StagingControls implements RequestObserver {
  readonly lever: SafetyLever;
  readonly audit: AuditLog;
  private readonly ttl = new TtlTimers();
  private watch: GuardrailWatch | undefined;
  /** The fleet version the armed scenario TTL belongs to. */
  private armedVersion: number | undefined;
  private guardrails: readonly Guardrail[] = [];

  constructor(
    private readonly host: StagingHost,
    private readonly opts: StagingOptions = {},
  ) {
    this.lever = new SafetyLever((state) => this.leverMoved(state), opts.shared);
    this.audit = new AuditLog({
      file: opts.auditFile,
      rotation: opts.auditRotation,
      replica: host.replica,
      shared: opts.shared,
      onError: (m) => host.log(m),
      onRotate: () => host.metrics.fileRotated('audit'),
    });
  }

  async start(): Promise<void> {
    await this.audit.open();
    await this.lever.start();
    await this.opts.shared?.subscribe((topic) => {
      if (topic === 'lever') void this.lever.refresh();
      else void this.followSharedTtl();
    });
  }

  // ---- scenario changes ----

  /** Checks a scenario change may happen now; returns the TTL it will carry, if any. */
  admitScenario(change: ChangeOptions = {}): number | undefined {
    const refusal = this.lever.refusal('a new scenario is');
    if (refusal) throw new LeverPulledError(refusal);
    return effectiveTtl(change.ttlMs, this.opts.maxTtlMs);
  }

  /**
   * Records a scenario change once it is in force and arms its TTL: `previous` is what was in
   * force before (undefined: pass-through), and comes back when the TTL runs out.
   */
  async scenarioChanged(previous: { definition: unknown; name: string } | undefined, ttlMs: number | undefined, actor: Actor = PROXY_ITSELF): Promise<void> {
    const now = this.host.current();
    await this.record('scenario-load', 'scenario', actor, previous?.definition, now?.definition, ttlMs !== undefined ? `ttl ${formatMs(ttlMs)}` : undefined);
    if (ttlMs === undefined || !now) return;
    const expiresAt = Date.now() + ttlMs;
    const previousJson = JSON.stringify(previous?.definition ?? null);
    if (this.opts.shared && now.version !== undefined)
      await this.opts.shared
        .writeTtl({ version: now.version, expires_at: expiresAt, previous: previousJson })
        .catch((err: Error) => this.host.log(`ttl of scenario ${now.name} not shared with the fleet (${err.message}); this replica still reverts it`));
    this.armScenarioTtl(expiresAt, previous?.name ?? 'pass-through', previousJson, now.version);
  }

  /** A scenario came into force (loaded here or published by another replica): new guardrail windows, no rule timers. */
  scenarioSwapped(guardrails: readonly Guardrail[] | undefined): void {
    this.guardrails = guardrails ?? [];
    this.watch = this.guardrails.length ? new GuardrailWatch(this.guardrails, (b) => void this.breached(b)) : undefined;
    this.ttl.disarmRules();
    // A scenario's TTL goes with it; a fleet's new version may come with one of its own.
    if (this.opts.shared) void this.followSharedTtl();
    else this.ttl.disarm('scenario');
  }

  private armScenarioTtl(expiresAt: number, revertsTo: string, previousJson: string, version: number | undefined): void {
    this.armedVersion = version;
    this.ttl.arm('scenario', expiresAt, revertsTo, () => void this.scenarioExpired(revertsTo, previousJson, version));
  }

  /** Another replica set (or a new version dropped) the scenario's TTL: follow it. */
  private async followSharedTtl(): Promise<void> {
    const raw = await this.opts.shared?.readTtl().catch(() => undefined);
    const now = this.host.current();
    const shared = raw === undefined ? undefined : checkSharedTtl(raw);
    if (shared && !shared.ok) this.host.log(`time to live in Redis refused: ${shared.problem}; the scenario in force stays, without one`);
    if (shared?.ok && now?.version === shared.ttl.version)
      this.armScenarioTtl(shared.ttl.expires_at, shared.revertsTo, shared.ttl.previous, shared.ttl.version);
    else if (this.armedVersion !== now?.version || shared?.ok === false) this.ttl.disarm('scenario'); // a read issued before this replica armed its own
  }

  private async scenarioExpired(revertsTo: string, previousJson: string, version: number | undefined): Promise<void> {
    const now = this.host.current();
    if (version !== undefined && now?.version !== version) return; // replaced meanwhile: its TTL went with it
    this.notify('ttl-expired', `ttl expired: scenario ${now?.name ?? '(none)'} reverts to ${revertsTo}`);
    // In a fleet every replica's timer fires; one carries out the revert and records it.
    if (this.opts.shared && version !== undefined && !(await this.opts.shared.claimRevert(version).catch(() => false))) return;
    const previous = JSON.parse(previousJson) as unknown;
    try {
      await this.host.restore(previous);
    } catch (err) {
      this.host.log(`ttl revert failed: ${(err as Error).message}`);
      return;
    }
    await this.record('scenario-revert', 'scenario', PROXY_ITSELF, now?.definition, previous, 'ttl expired');
  }

  // ---- rule switches ----

  /** Switches a rule, refusing while the lever is pulled; with a TTL the rule goes back to how it was. */
  switchRule(id: string, enabled: boolean, change: ChangeOptions = {}): RuleStatus | undefined {
    const refusal = this.lever.refusal(`switching rule "${id}" is`);
    if (refusal) throw new LeverPulledError(refusal);
    const ttlMs = effectiveTtl(change.ttlMs, this.opts.maxTtlMs);
    const before = this.host.ruleEnabled(id);
    const rule = this.host.setRule(id, enabled);
    if (!rule) return undefined;
    const definition = this.host.current()?.definition;
    void this.record(
      'rule-switch',
      `rule:${id}`,
      change.actor ?? PROXY_ITSELF,
      definition,
      definition,
      `${enabled ? 'enabled' : 'disabled'}${ttlMs !== undefined ? `, ttl ${formatMs(ttlMs)}` : ''}`,
    );
    const target = `rule:${id}`;
    if (ttlMs === undefined || before === undefined || before === enabled) this.ttl.disarm(target);
    else
      this.ttl.arm(target, Date.now() + ttlMs, before ? 'enabled' : 'disabled', () => {
        this.host.setRule(id, before);
        this.notify('ttl-expired', `ttl expired: rule ${id} ${before ? 'enabled' : 'disabled'} again`);
        void this.record('rule-revert', target, PROXY_ITSELF, definition, definition, 'ttl expired');
      });
    return rule;
  }

  // ---- the lever ----

  async pullLever(reason: string | undefined, actor: Actor, haltedBy?: string): Promise<LeverState> {
    const state: LeverState = {
      pulled: true,
      ...(reason ? { reason } : {}),
      by: describeActor(actor),
      ...(haltedBy ? { halted_by: haltedBy } : {}),
      at: new Date().toISOString(),
      ...(this.host.replica ? { replica: this.host.replica } : {}),
    };
    await this.lever.move(state);
    const definition = this.host.current()?.definition;
    await this.record('lever-pull', 'fleet', actor, definition, definition, reason);
    return state;
  }

  async releaseLever(actor: Actor): Promise<LeverState> {
    const state: LeverState = {
      pulled: false,
      by: describeActor(actor),
      at: new Date().toISOString(),
      ...(this.host.replica ? { replica: this.host.replica } : {}),
    };
    await this.lever.move(state);
    const definition = this.host.current()?.definition;
    await this.record('lever-release', 'fleet', actor, definition, definition);
    return state;
  }

  private leverMoved(state: LeverState): void {
    this.host.leverMoved(state);
    const message = state.pulled
      ? `safety lever pulled${state.halted_by ? ` (halted by ${state.halted_by})` : ''} by ${state.by ?? 'unknown'}${state.reason ? `: ${state.reason}` : ''}; faults stop (dry run), new scenarios and rule switches are refused`
      : `safety lever released by ${state.by ?? 'unknown'}; faults apply again`;
    this.notify(state.pulled ? 'lever-pulled' : 'lever-released', message);
  }

  /** A change that is not a request: one log line, one /events notice. */
  private notify(event: string, message: string): void {
    this.host.log(message);
    this.host.hub.notice({ event, message, ...(this.host.replica ? { replica: this.host.replica } : {}) });
  }

  // ---- guardrails ----

  /** Guardrails read the whole entry (a retry storm is told by the request hash); with none, nothing is read. */
  readsWholeEntry(): boolean {
    return this.watch !== undefined;
  }

  onRequestDone(entry: JournalEntry): void {
    this.watch?.onRequestDone(entry);
  }

  private async breached(b: GuardrailBreach): Promise<void> {
    if (this.lever.state.pulled) return;
    this.host.metrics.guardrailBreached(b.name);
    this.notify('guardrail-breach', `guardrail ${b.name} breached: ${b.detail}`);
    const definition = this.host.current()?.definition;
    await this.record('guardrail-breach', `guardrail:${b.name}`, PROXY_ITSELF, definition, definition, b.detail);
    await this.pullLever(b.detail, { ...PROXY_ITSELF, by: `guardrail ${b.name}` }, `guardrail ${b.name}`).catch((err: Error) =>
      this.host.log(`guardrail ${b.name}: the lever could not be pulled for the fleet (${err.message}); faults stop here`),
    );
  }

  // ---- records ----

  /** Records an admin action that changes no scenario (reset, dry run, session reset). */
  recordAction(action: AuditAction, target: string, actor: Actor = PROXY_ITSELF, detail?: string): Promise<AuditEntry> {
    const definition = this.host.current()?.definition;
    return this.record(action, target, actor, definition, definition, detail);
  }

  private record(action: AuditAction, target: string, actor: Actor, before: unknown, after: unknown, detail?: string): Promise<AuditEntry> {
    return this.audit.record({
      action,
      target,
      scenario_before: scenarioSha(before),
      scenario_after: scenarioSha(after),
      remote: actor.remote,
      token: actor.token,
      ...(detail !== undefined || actor.by !== undefined ? { detail: [actor.by ? `by ${actor.by}` : undefined, detail].filter(Boolean).join('; ') } : {}),
    });
  }

  /** The time left on one target (`scenario`, `rule:ID`), if it has a TTL. */
  ttlOf(target: string): TtlStatus | undefined {
    return this.ttl.list().find((t) => t.target === target);
  }

  /** What /status shows: the lever, the times left, the guardrails watched. */
  status(): { safety_lever: LeverState; ttl: TtlStatus[]; guardrails: string[]; audit: { file: string | null } } {
    return { safety_lever: this.lever.state, ttl: this.ttl.list(), guardrails: this.guardrails.map((g) => g.name), audit: { file: this.audit.file ?? null } };
  }

  async close(): Promise<void> {
    this.ttl.close();
    await this.audit.close();
    this.opts.shared?.close();
  }
}
