/**
 * The control surface of a run: what the admin API, the library and `ctl` act on (scenario swaps,
 * rule switches, dry run, resets, the report and /status), and the admin API serving it.
 */
import { displayUrl } from '../common/display-url.js';
import { startAdminServer, type AdminServer } from '../control/admin.js';
import type { StagingControls } from '../staging/controls.js';
import type { ChangeOptions, ControlSurface, RuntimeStatus } from '../control/surface.js';
import { ApiError } from '../http/routes.js';
import type { RuleStatus } from '../engine/decision.js';
import { ADMIN_LISTENER, listenNamed } from '../http/listen-errors.js';
import type { ObservedSection } from '../observe/live-grader.js';
import { REPLAY_TARGET_PREFIX } from '../option-values.js';
import { PROXY_ITSELF } from '../staging/controls.js';
import { buildReport, type Report } from '../report/report.js';
import type { Thresholds } from '../report/thresholds.js';
import type { ScenarioInput } from '../scenario/input.js';
import type { ScenarioSource } from '../scenario/source.js';
import { memoryStateStatus } from '../state/fleet.js';
import type { DealerSide } from './dealer-side.js';
import type { Front, Sinks } from './front.js';
import type { LiveScenario } from './live-scenario.js';
import type { StartedParts } from './started-parts.js';
import type { StartOptions } from './start-options.js';
import type { Runtime } from './types.js';
import { VERSION } from './version.js';

/** Where the run listens and what it fronts, as /status shows it. */
export interface Placement {
  url: string;
  startedAt: number;
  side: DealerSide;
  dealerUrls: Record<string, string> | undefined;
}

export function controlSurface(
  { opts, log, observe }: StartOptions,
  scenario: LiveScenario,
  front: Front,
  { journal, metrics, hub }: Sinks,
  staging: StagingControls,
  placement: Placement,
): ControlSurface & Pick<Runtime, 'use'> {
  const { grader } = front;
  return {
    journal,
    metrics,
    hub,
    get engine() {
      return scenario.engine;
    },
    staging,
    use: (input: ScenarioInput, change?: ChangeOptions) => scenario.use(input, change),
    replaceScenario: (source: ScenarioSource, change?: ChangeOptions) => scenario.replace(source, change),
    setRuleEnabled(id: string, enabled: boolean, change?: ChangeOptions): RuleStatus | undefined {
      return staging.switchRule(id, enabled, change);
    },
    setDryRun(enabled: boolean, actor = PROXY_ITSELF): void {
      if (observe && !enabled) throw new ApiError(409, 'observe mode: nothing is ever injected; restart without --observe to inject faults');
      front.operatorDryRun = enabled;
      front.listener.dryRun = enabled || staging.lever.state.pulled;
      void staging.recordAction('dry-run', 'proxy', actor, enabled ? 'on' : 'off');
      log(
        enabled
          ? 'dry run on: faults are journaled, never applied'
          : `dry run off: faults apply again${staging.lever.state.pulled ? ' once the safety lever is released' : ''}`,
      );
    },
    async reset(actor = PROXY_ITSELF): Promise<void> {
      const engine = scenario.engine;
      engine?.reset();
      journal.clear();
      grader?.clear();
      await engine?.forgetShared?.();
      await staging.recordAction('reset', 'scenario', actor);
    },
    async resetSession(id: string, actor = PROXY_ITSELF): Promise<void> {
      const engine = scenario.engine;
      engine?.resetSession(id);
      journal.clear(id);
      await engine?.forgetShared?.(id);
      await staging.recordAction('session-reset', `session:${id}`, actor);
    },
    sessions: () => scenario.engine?.sessions() ?? [],
    report(query: { session?: string } = {}): Report & { observe?: ObservedSection } {
      // Each line records the profile and extension URI in force; the proxy's current ones may differ.
      const report = buildReport(query.session === undefined ? journal.all() : journal.ofSession(query.session), {
        thresholds: scenario.engine?.reportThresholds as Partial<Thresholds> | undefined,
      });
      return grader ? { ...report, observe: grader.section() } : report;
    },
    status(): RuntimeStatus {
      const { url, startedAt, side, dealerUrls } = placement;
      const { proxy } = front;
      const engine = scenario.engine;
      return {
        version: VERSION,
        uptime_s: Math.round((Date.now() - startedAt) / 1000),
        url,
        // A replay names its recording, not the loopback port its dealer happens to listen on.
        target: side.replayFile !== undefined ? `${REPLAY_TARGET_PREFIX}${side.replayFile}` : displayUrl(front.target),
        mock_dealer: side.mock !== undefined || front.mocks.length > 0,
        ...(dealerUrls ? { dealers: dealerUrls } : {}),
        profile: proxy.profile.profile,
        profile_origin: proxy.profile.origin,
        extension_uri: proxy.profile.extensionUri,
        dry_run: front.listener.dryRun,
        observe,
        scenario: engine?.name ?? null,
        ...(engine?.description ? { description: engine.description } : {}),
        seed: engine?.seed ?? null,
        rules: engine?.rules() ?? [],
        active_faults: engine?.activeFaults() ?? 0,
        journal: { entries: journal.size, ring_size: journal.ringSize, file: journal.file ?? null, dropped: journal.dropped },
        events: { clients: hub.clientCount, dropped: hub.dropped },
        state: scenario.fleet ? scenario.fleet.status(engine) : memoryStateStatus(opts.replicaId),
        ...staging.status(),
      };
    },
  };
}

/** The admin API on --admin-host and --admin-port. */
export async function listenAdmin(start: StartOptions, surface: ControlSurface, parts: StartedParts): Promise<AdminServer> {
  const { opts, adminHost: host, adminToken: token, timeouts, tls } = start;
  const port = opts.adminPort ?? 8081;
  const admin = await listenNamed(ADMIN_LISTENER, host, port, () => startAdminServer(surface, { host, port, token, timeouts, tls: tls.admin?.pair }));
  parts.add(() => admin.close());
  return admin;
}
