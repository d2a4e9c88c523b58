/**
 * The library API: start a chaos proxy from a test file, point the buyer at it, assert on the
 * journal and the report, close it.
 *
 *   const chaos = await startChaos({ scenario: 'rate-limit-storm' });
 *   // … drive the buyer against chaos.url …
 *   const report = chaos.report();
 *   await chaos.close();
 */
import { startRuntime, type Runtime, type RuntimeEvents, type RuntimeOptions, type RuntimeStatus, type ScenarioInput } from './runtime.js';
import type { JournalEntry } from './journal/entry.js';
import type { Report } from './report/report.js';
import type { ObservedSection } from './observe/live-grader.js';

export type ChaosOptions = Omit<RuntimeOptions, 'log' | 'env'> & {
  /** Where start-up lines go (default: nowhere, so test output stays clean). */
  log?: (line: string) => void;
};

export interface Chaos {
  /** Where the buyer should send its requests (the dealer's base URL, through the proxy). */
  readonly url: string;
  /** The admin API of this instance. */
  readonly adminUrl: string;
  /**
   * Validates and swaps the scenario; rejects with ScenarioRejectedError (keeping the old one) when
   * invalid. With `ttlMs`, the scenario in force before comes back by itself after that long.
   */
  use(scenario: ScenarioInput, opts?: { ttlMs?: number }): Promise<void>;
  /** Journal lines still in the ring, in the order their requests finished (of one session, when given). */
  journal(query?: { session?: string }): JournalEntry[];
  /** The buyer-behaviour report over the journal so far (over one session's lines, when given); with `observe`, plus the live grading. */
  report(query?: { session?: string }): Report & { observe?: ObservedSection };
  /** Forgets one session's rule state and journal lines (in fleet mode, resolves once Redis forgot it too). */
  resetSession(id: string): Promise<void>;
  /** Emits `request` with each journal line as its request finishes. */
  readonly events: RuntimeEvents;
  /** The status the admin API's `GET /status` returns. */
  status(): RuntimeStatus;
  /** Drains requests in flight, flushes the journal, stops every listener. */
  close(): Promise<void>;
}

/**
 * Starts the proxy (and, with no `target`, the embedded mock dealer). Unlike the CLI, both ports
 * default to 0 — a free port each — so parallel test files never collide.
 */
export async function startChaos(opts: ChaosOptions = {}): Promise<Chaos> {
  const runtime: Runtime = await startRuntime({ port: 0, adminPort: 0, ...opts });
  return {
    url: runtime.url,
    adminUrl: runtime.adminUrl,
    events: runtime.events,
    use: async (scenario, { ttlMs } = {}) => {
      await runtime.use(scenario, { ttlMs });
    },
    journal: (query = {}) => runtime.journal.entries(query),
    report: (query) => runtime.report(query),
    resetSession: async (id) => runtime.resetSession(id),
    status: () => runtime.status(),
    close: () => runtime.close(),
  };
}

export { ScenarioRejectedError, startRuntime, closeOnSignals, loadScenarioInput, VERSION } from './runtime.js';
export type { Runtime, RuntimeOptions, RuntimeEvents, RuntimeStatus, ScenarioInput, MockDealerSettings } from './runtime.js';
export type { JournalEntry, ReplySource } from './journal/entry.js';
export type { ReplyOutcome, UnknownCause } from './journal/outcome.js';
export { OptionError } from './options.js';
export type { Report, CheckResult, CheckName, Verdict, ReportOptions } from './report/report.js';
export type { ObservedSection, VerdictEvent } from './observe/live-grader.js';
export type { RuleStatus, ScenarioEngine } from './engine/decision.js';
export type { Scenario, Rule } from './scenario/load.js';
export type { ProfileSetting } from './proxy/profile.js';
export type { Profile } from './protocol/codes.js';
export type { ChangeNotice, DroppedNotice } from './control/events.js';
export type { AuditEntry } from './staging/audit.js';
export type { LeverState } from './staging/safety-lever.js';
export { runCheck, type CheckOptions, type CheckReport, type RuleResult, type RuleVerdict } from './check/run-check.js';
export {
  CONFORMANCE_RULES,
  checkCard,
  checkReply,
  violationsOf,
  type ConformanceRule,
  type Exchange,
  type Finding,
  type Violation,
} from './protocol/conformance/index.js';
export type { DealerConformanceSection } from './report/dealer-conformance.js';
