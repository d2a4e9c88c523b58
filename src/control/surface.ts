/**
 * What the admin API drives and answers with: the control surface the runtime provides, the
 * status it reports, and the shape of one route. Below both the runtime and the admin server, so
 * neither imports the other for its types.
 */
import type { RuleStatus, ScenarioEngine } from '../engine/decision.js';
import type { SessionSummary } from '../engine/sessions.js';
import type { Journal } from '../journal/journal.js';
import type { Report } from '../report/report.js';
import type { ObservedSection } from '../observe/live-grader.js';
import type { Profile } from '../protocol/codes.js';
import type { ProfileOrigin } from '../proxy/profile.js';
import type { ScenarioSource } from '../scenario/source.js';
import type { EventHub } from './events.js';
import type { ChaosMetrics } from './metrics.js';
import type { StateStatus } from '../engine/shared-store.js';
import type { Actor, ChangeOptions, StagingControls } from '../staging/controls.js';
import type { LeverState } from '../staging/safety-lever.js';
import type { TtlStatus } from '../staging/ttl.js';
import type { Route as HttpRoute } from '../http/routes.js';

export type { Actor, ChangeOptions } from '../staging/controls.js';

export type { ScenarioInput } from '../scenario/input.js';

export interface RuntimeStatus {
  version: string;
  uptime_s: number;
  url: string;
  target: string;
  mock_dealer: boolean;
  /** Each dealer's base URL on the proxy, by name, when the run fronts several (`--dealer`, `--mock-dealers`). */
  dealers?: Record<string, string>;
  profile: Profile;
  profile_origin: ProfileOrigin;
  extension_uri: string;
  dry_run: boolean;
  /** --observe: nothing is injected and buyers are graded live. */
  observe: boolean;
  scenario: string | null;
  description?: string;
  seed: number | null;
  rules: RuleStatus[];
  active_faults: number;
  journal: { entries: number; ring_size: number; file: string | null; dropped: number };
  events: { clients: number; dropped: number };
  /** The rule state store, this replica and the published scenario version (fleet mode). */
  state: StateStatus;
  /** The fleet's safety lever as this replica follows it. */
  safety_lever: LeverState;
  /** Changes that undo themselves, with the time left. */
  ttl: TtlStatus[];
  /** Names of the guardrails of the scenario in force. */
  guardrails: string[];
  audit: { file: string | null };
}

/** What the admin API drives; the runtime provides it. */
export interface ControlSurface {
  readonly engine: ScenarioEngine | undefined;
  readonly journal: Journal;
  readonly metrics: ChaosMetrics;
  readonly hub: EventHub;
  /** The safety lever, the audit log, TTLs and guardrails. */
  readonly staging: StagingControls;
  status(): RuntimeStatus;
  /**
   * Validates and swaps the scenario sent over the network (text, object or built-in name: never a
   * path); throws ScenarioRejectedError and keeps the old one when invalid, LeverPulledError while
   * the safety lever is pulled. With `ttlMs` the scenario in force before comes back by itself.
   */
  replaceScenario(source: ScenarioSource, change?: ChangeOptions): Promise<ScenarioEngine>;
  /** The rule after the change, or undefined when no loaded rule has that id; LeverPulledError while the lever is pulled. */
  setRuleEnabled(id: string, enabled: boolean, change?: ChangeOptions): RuleStatus | undefined;
  /** Dry run on: rules are decided and journaled, but no fault is applied. */
  setDryRun(enabled: boolean, actor?: Actor): void;
  /** Counters, rate-limit state and the journal ring. */
  reset(actor?: Actor): void | Promise<void>;
  /** One session's rule state and journal lines. */
  resetSession(id: string, actor?: Actor): void | Promise<void>;
  sessions(): SessionSummary[];
  /** The report over every journal line, or over one session's; with --observe, plus the live grading. */
  report(query?: { session?: string }): Report & { observe?: ObservedSection };
}

export type Route = HttpRoute<ControlSurface>;
