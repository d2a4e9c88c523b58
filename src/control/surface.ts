/**
 * What the admin API drives and answers with: the control surface the runtime provides, the
 * status it reports, and the shape of one route. Below both the runtime and the admin server, so
 * neither imports the other for its types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuleStatus, ScenarioEngine } from '../engine/decision.js';
import type { SessionSummary } from '../engine/sessions.js';
import type { Journal } from '../journal/journal.js';
import type { Report } from '../journal/report.js';
import type { Profile } from '../protocol/codes.js';
import type { ProfileOrigin } from '../proxy/profile.js';
import type { Scenario } from '../scenario/types.generated.js';
import type { EventHub } from './events.js';
import type { ChaosMetrics } from './metrics.js';
import type { StateStatus } from '../state/store.js';

/** A scenario as callers may give it: a built-in name, a file path, YAML or JSON text, or a parsed object. */
export type ScenarioInput = string | Scenario;

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
  scenario: string | null;
  description?: string;
  seed: number | null;
  rules: RuleStatus[];
  active_faults: number;
  journal: { entries: number; ring_size: number; file: string | null; dropped: number };
  events: { clients: number; dropped: number };
  /** The rule state store, this replica and the published scenario version (fleet mode). */
  state: StateStatus;
}

/** What the admin API drives; the runtime provides it. */
export interface ControlSurface {
  readonly engine: ScenarioEngine | undefined;
  readonly journal: Journal;
  readonly metrics: ChaosMetrics;
  readonly hub: EventHub;
  status(): RuntimeStatus;
  /** Validates and swaps the scenario; throws ScenarioRejectedError and keeps the old one when invalid. */
  use(input: ScenarioInput): Promise<ScenarioEngine>;
  /** The rule after the change, or undefined when no loaded rule has that id. */
  setRuleEnabled(id: string, enabled: boolean): RuleStatus | undefined;
  /** Dry run on: rules are decided and journaled, but no fault is applied. */
  setDryRun(enabled: boolean): void;
  /** Counters, rate-limit state and the journal ring. */
  reset(): void | Promise<void>;
  /** One session's rule state and journal lines. */
  resetSession(id: string): void | Promise<void>;
  sessions(): SessionSummary[];
  /** The report over every journal line, or over one session's. */
  report(query?: { session?: string }): Report;
}

/** An error the API answers with; anything else is a bug and answers 500 without details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
}

export interface Route {
  method: string;
  path: RegExp;
  handle(surface: ControlSurface, call: Call): Promise<void> | void;
}

