/**
 * The composition root, shared by the CLI and the library: the mock dealer (when there is no
 * target), the proxy, the journal, metrics, live events and the admin API, wired together; the
 * current scenario engine, swapped atomically; and the orderly shutdown.
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Decider, ScenarioEngine, RuleStatus } from './engine/decision.js';
import { createEngine } from './engine/engine.js';
import type { JournalEntry } from './journal/entry.js';
import { Journal } from './journal/journal.js';
import { buildReport, type Report } from './report/report.js';
import type { Thresholds } from './report/thresholds.js';
import { startMockDealer, type RunningMockDealer } from './mock/server.js';
import type { Profile } from './protocol/codes.js';
import { describeProfileOrigin, type ProfileSetting } from './proxy/profile.js';
import { ChaosProxy } from './proxy/server.js';
import type { RequestObserver } from './journal/entry.js';
import { formatProblem, type LoadResult, type Scenario } from './scenario/load.js';
import { loadScenarioInput, ScenarioRejectedError, type ScenarioInput } from './scenario/input.js';
import { loadScenarioSource, type ScenarioSource } from './scenario/source.js';
import { ADMIN_TOKEN_ENV, assertAdminExposureAllowed } from './control/auth.js';
import { startAdminServer, type AdminServer } from './control/admin.js';
import type { ChangeOptions, ControlSurface, RuntimeStatus } from './control/surface.js';
import { EventHub } from './control/events.js';
import type { DealerTls } from './proxy/forward.js';
import { ChaosMetrics } from './control/metrics.js';
import { checkOptions, OptionError, REPLAY_TARGET_PREFIX, type DealerTarget } from './options.js';
import { Recorder, RecordingOpenError } from './recording/recorder.js';
import type { ReplaySettings } from './replay/dealer.js';
import { startTracing, tracingSettings } from './control/tracing/settings.js';
import type { Tracing } from './control/tracing/types.js';
import { LiveGrader, type ObservedSection } from './observe/live-grader.js';
import { ApiError } from './control/surface.js';
import { isMultiDealer, startDealers } from './multi-dealer.js';
import { DealerRouter } from './proxy/dealer-router.js';
import { ADMIN_LISTENER, listenNamed, PROXY_LISTENER } from './http/listen-errors.js';
import { Fleet, memoryStateStatus, stateUrlOf } from './state/fleet.js';
import { FleetControl } from './state/fleet-control.js';
import { PROXY_ITSELF, StagingControls } from './control/staging.js';
import { readServerTls, reloadServerTls, type ServerTlsFiles } from './control/server-tls.js';

export type { RuntimeStatus } from './control/surface.js';
export { loadScenarioInput, ScenarioRejectedError, type ScenarioInput } from './scenario/input.js';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface MockDealerSettings {
  profile?: Profile;
  /** The AAP extension URI the mock's card declares (default: v1.3, or the 2.0 draft placeholder). */
  extensionUri?: string;
  /** Serve SendStreamingMessage as a task stream. */
  streaming?: boolean;
  /** JSON inventory to serve instead of the generated one. */
  inventoryFile?: string;
}

export interface RuntimeOptions {
  /** The dealer to stand in front of (or replay:FILE, a dealer answering from a recording); without one, the embedded mock dealer is started. */
  target?: string;
  /** How a `replay:FILE` target replays its recording. */
  replay?: ReplaySettings;
  /** Append every exchange with the dealer, and its card, to this recording (JSONL). */
  record?: string;
  /** The recording file's size limit (default 100 MiB); recording stops, with one message, when it is reached. */
  recordMaxBytes?: number;
  /** Several dealers behind one listener, each under /d/NAME/ (`--dealer NAME=URL`, repeatable); not with `target`. */
  dealers?: Array<DealerTarget | string>;
  /** Start this many embedded mock dealers (m1…mN), each under /d/NAME/ (`--mock-dealers N`). */
  mockDealers?: number;
  /** Proxy port (default 8080; 0 picks a free one). */
  port?: number;
  host?: string;
  /** Host names the proxy answers to besides loopback names when `host` is loopback (--allow-host; `*.NAME` for subdomains). */
  allowHosts?: string[];
  /** Admin API port (default 8081; 0 picks a free one). */
  adminPort?: number;
  /** Admin API address (default 127.0.0.1); any other address needs a token. */
  adminHost?: string;
  /** Required on every admin call when set; defaults to the AAP_CHAOS_ADMIN_TOKEN variable. */
  adminToken?: string;
  scenario?: ScenarioInput;
  /** Overrides the scenario's seed (for every scenario loaded later, too). */
  seed?: number;
  profile?: ProfileSetting;
  extensionUri?: string;
  upstreamTimeoutMs?: number;
  /** How long a dealer's event stream may stay quiet between events (default 0: as long as it likes). */
  streamIdleTimeoutMs?: number;
  maxInspectBytes?: number;
  rewriteCard?: boolean;
  dryRun?: boolean;
  /** Check the dealer's replies against the conformance rules (journal, metrics, events, report). */
  checkDealer?: boolean;
  allowHeaderFaults?: boolean;
  /** JSONL file the journal is appended to. */
  journalFile?: string;
  /** Entries the in-memory journal keeps (default 10 000). */
  journalRing?: number;
  /** How long requests in flight may take to finish at shutdown (default 5 000 ms). */
  drainTimeoutMs?: number;
  /** Who a journal line is attributed to: `ip` or `header:NAME`; default the header every rule keys on, else `ip`. */
  clientKey?: string;
  /** Request header that names a session (default x-aap-chaos-session). */
  sessionHeader?: string;
  mock?: MockDealerSettings;
  /** Bytes a slow /events client may have waiting before its messages are dropped. */
  eventsBufferBytes?: number;
  /** Time limits for clients sending a request, on the proxy, the mock dealer and the admin API. */
  headerTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Request bodies larger than this get 413 (default 10 MB). */
  maxBodyBytes?: number;
  /** Header names that are secrets besides Authorization, cookies and x-api-key (--redact-header). No sink stores header values, and client keys from headers are keyed hashes, so these are kept for the record only. */
  redactHeaders?: string[];
  /** TLS trust for an https:// target: extra CA certificates (PEM text) and/or no verification. */
  dealerTls?: DealerTls;
  /** Where rule state lives: memory (default) or redis://host:port/db, shared by a fleet; defaults to AAP_CHAOS_STATE. */
  state?: string;
  /** This replica's name in journal lines and /status (fleet mode; default host-pid). */
  replicaId?: string;
  /**
   * OTLP/HTTP endpoint (a collector's base URL, /v1/traces is added) for a span per exchange;
   * default the OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT variables, else no traces.
   */
  otlpEndpoint?: string;
  /** Passive grading: nothing is injected (as dryRun), and the report's checks grade live traffic continuously. */
  observe?: boolean;
  /** Where start-up lines go (default: nowhere). */
  log?: (line: string) => void;
  /** Where the admin token and OTEL_* variables are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** PEM certificate and key files: the proxy serves buyers over HTTPS (--tls-cert, --tls-key). */
  tlsCert?: string;
  tlsKey?: string;
  /** PEM certificate and key files for the admin API (--admin-tls-cert, --admin-tls-key). */
  adminTlsCert?: string;
  adminTlsKey?: string;
  /** Longest time to live of a runtime change; with it, every change gets one (--max-ttl). */
  maxTtlMs?: number;
  /** JSONL file the audit log is appended to (--audit). */
  auditFile?: string;
  /** Untouched exchanges over the proxy's own sockets instead of undici (ProxyOptions.fastPath; default true). Not a flag: the benchmark turns it off to compare. */
  fastPath?: boolean;
}

/** Emits `request` with each journal line as a request finishes. */
export type RuntimeEvents = EventEmitter<{ request: [JournalEntry] }>;

export interface Runtime extends ControlSurface {
  readonly url: string;
  readonly adminUrl: string;
  /** The proxy; with several dealers, the first dealer's (each dealer's is in `router.dealers`). */
  readonly proxy: ChaosProxy;
  /** With several dealers: the listener routing /d/NAME/ to each dealer's proxy. */
  readonly router?: DealerRouter;
  /** Each dealer's base URL on the proxy, by name (several dealers only). */
  readonly dealerUrls?: Record<string, string>;
  readonly events: RuntimeEvents;
  /** The engine deciding requests now, if a scenario is loaded. */
  readonly engine: ScenarioEngine | undefined;
  /** Reads the TLS files again for new connections; returns one line per listener reloaded, throws when a file is bad (the old one stays). */
  reloadTls(): string[];
  /** Validates and swaps the scenario (a file may be named); throws ScenarioRejectedError and keeps the old one when invalid. */
  use(input: ScenarioInput, change?: ChangeOptions): Promise<ScenarioEngine>;
  /** Stops accepting, drains requests in flight, flushes the journal, closes event clients. Idempotent. */
  close(): Promise<void>;
}

export async function startRuntime(given: RuntimeOptions): Promise<Runtime> {
  // Every option is checked the way its flag is, before anything starts.
  const opts = checkOptions(given as RuntimeOptions & Record<string, unknown>, 'library');
  const log = opts.log ?? (() => {});
  const adminHost = opts.adminHost ?? '127.0.0.1';
  const adminToken = opts.adminToken || (opts.env ?? process.env)[ADMIN_TOKEN_ENV] || undefined;
  assertAdminExposureAllowed(adminHost, adminToken);
  // Read and checked before anything starts: a bad file is one line, and nothing listens.
  const tls: ServerTlsFiles = readServerTls(opts);
  // The endpoint option was checked above; the variables are checked here, each named when wrong.
  const traces = tracingSettings(opts.otlpEndpoint, opts.env ?? process.env);
  const observe = opts.observe ?? false;

  // Made before the metrics exist (the first scenario decides the profile); they are told once they do.
  let metrics: ChaosMetrics | undefined;
  const onFaultOverflow = (rule: string) => metrics?.faultOverflowed(rule);
  const checked = (result: LoadResult): Scenario => {
    if (!result.ok) throw new ScenarioRejectedError(result.problems.map(formatProblem));
    return result.scenario;
  };
  const validated = async (input: ScenarioInput): Promise<Scenario> => checked(await loadScenarioInput(input));
  // What Redis holds is checked as an object: a JSON string there is refused, never read as a path.
  // A fleet's pass-through is published as JSON null (a TTL that ran out with nothing before it).
  const isPassThrough = (json: string) => json.trim() === 'null';
  const published = async (version: number, json: string): Promise<Scenario> =>
    checked(await loadScenarioSource({ json, name: `published scenario version ${version}` }));
  const stateUrl = stateUrlOf(opts.state, opts.env ?? process.env);
  const own = opts.scenario !== undefined ? await validated(opts.scenario) : undefined;
  const fleet = stateUrl !== undefined ? await Fleet.start(stateUrl, opts.replicaId, opts.state === undefined) : undefined;
  const engineFor = (scenario: Scenario, version?: number) =>
    createEngine(scenario, {
      seed: opts.seed,
      allowHeaderFaults: opts.allowHeaderFaults,
      onFaultOverflow,
      replicaId: opts.replicaId,
      ...(fleet && version !== undefined ? fleet.engineOptions(scenario, version) : {}),
    });
  let engine: ScenarioEngine | undefined;
  try {
    // In a fleet the scenario already published wins over this replica's own.
    const adopted = await fleet?.adopt(own);
    // A published null is the fleet's pass-through (a TTL that ran out with nothing before it).
    engine = adopted
      ? isPassThrough(adopted.json)
        ? undefined
        : engineFor(await published(adopted.version, adopted.json), adopted.version)
      : own && engineFor(own);
  } catch (err) {
    await fleet?.close();
    throw err;
  }

  // Precedence: the --profile flag, then the scenario's profile:, then the dealer's card (auto).
  const profile = opts.profile ?? engine?.profile ?? 'auto';
  const profileOrigin = opts.profile !== undefined ? 'flag' : 'scenario';
  const startedAt = Date.now();
  const timeouts = { headerTimeoutMs: opts.headerTimeoutMs, bodyTimeoutMs: opts.bodyTimeoutMs };
  const cleanups: Array<() => Promise<void>> = [];
  if (fleet) cleanups.push(() => fleet.close());
  const undo = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };

  try {
    const journal = new Journal({ ringSize: opts.journalRing, file: opts.journalFile, onDrop: (n) => metrics?.journalDropped('file', n) });
    await journal.open();
    cleanups.push(() => journal.close());
    metrics = new ChaosMetrics(() => engine);
    const hub = new EventHub(opts.eventsBufferBytes, (n) => metrics?.journalDropped('events', n));
    cleanups.push(() => hub.close());

    let mock: RunningMockDealer | undefined;
    let target = opts.target;
    const multi = isMultiDealer(opts as { dealers?: DealerTarget[] });
    // --mock-profile, else the profile fixed at start (flag, then scenario), else 1.3: so a 2.0 run
    // has a 2.0 dealer behind it, whose card names the 2.0 URI that -32008 must name.
    const mockProfile = opts.mock?.profile ?? (profile !== 'auto' ? profile : undefined);
    if (!target && !multi) {
      mock = await startMockDealer({ ...opts.mock, profile: mockProfile, port: 0, host: '127.0.0.1', timeouts });
      cleanups.push(() => mock!.close());
      target = mock.url;
    }
    let replayFile: string | undefined;
    let replay: { close(): Promise<void> } | undefined;
    if (target?.startsWith(REPLAY_TARGET_PREFIX)) {
      replayFile = target.slice(REPLAY_TARGET_PREFIX.length);
      // Loaded on use: a live run never pays for the replay's modules.
      const { startReplayDealer } = await import('./replay/dealer.js');
      const started = await startReplayDealer({
        ...opts.replay,
        file: replayFile,
        port: 0,
        host: '127.0.0.1',
        timeouts,
        log,
        secretHeaders: opts.redactHeaders,
      });
      replay = started;
      cleanups.push(() => started.close());
      target = started.url;
      log(`replaying ${replayFile}: ${started.recording.exchanges.length} exchanges${started.recording.card ? ' and the agent card' : ', no agent card'}`);
    }
    let recorder: Recorder | undefined;
    if (opts.record !== undefined) {
      // A recording is one dealer's answers; several dealers would need one file each.
      if (target === undefined) throw new OptionError('--record: not with --dealer or --mock-dealers (a recording holds one dealer)');
      try {
        // A full recording must be noticed: without a log (the library), it becomes a process warning.
        const tell = opts.log ?? ((line: string) => process.emitWarning(`aap-chaos: ${line}`));
        recorder = Recorder.open({ file: opts.record, maxBytes: opts.recordMaxBytes, target, log: tell, secretHeaders: opts.redactHeaders });
      } catch (err) {
        if (err instanceof RecordingOpenError) throw new OptionError(`--record: ${err.message}`);
        throw err;
      }
      const opened = recorder;
      cleanups.push(() => opened.close());
    }

    let tracing: Tracing | undefined;
    if (traces) {
      const replica = fleet?.replica ?? opts.replicaId;
      tracing = await startTracing(traces, {
        target: target ?? 'several dealers',
        version: VERSION,
        replica,
        onDropped: (reason, n) => metrics?.spanDropped(reason, n),
        log,
      });
      cleanups.push(() => tracing!.close());
    }

    const proxyOptions = {
      upstreamTimeoutMs: opts.upstreamTimeoutMs,
      streamIdleTimeoutMs: opts.streamIdleTimeoutMs,
      maxInspectBytes: opts.maxInspectBytes,
      rewriteCard: opts.rewriteCard,
      profile,
      profileOrigin,
      extensionUri: opts.extensionUri,
      clientKey: opts.clientKey,
      dryRun: opts.dryRun || observe,
      sessionHeader: opts.sessionHeader,
      checkDealer: opts.checkDealer,
      timeouts,
      maxBodyBytes: opts.maxBodyBytes,
      tls: opts.dealerTls,
      serverTls: tls.proxy?.pair,
      replica: fleet?.replica ?? opts.replicaId,
      clientKeySecret: fleet?.clientKeySecret,
      recorder,
      allowHosts: opts.allowHosts,
      tracer: tracing?.tracer,
      fastPath: opts.fastPath,
    } as const;
    const mocks: RunningMockDealer[] = [];
    const router = multi
      ? new DealerRouter(
          await startDealers(opts as { dealers?: DealerTarget[] }, { ...opts.mock, profile: mockProfile }, timeouts, (m) => {
            mocks.push(m);
            cleanups.push(() => m.close());
          }),
          proxyOptions,
        )
      : undefined;
    if (router) target = [...router.dealers.values()].map((p) => p.forwarder.origin).join(', ');
    const proxy = router?.first ?? new ChaosProxy({ target: target!, ...proxyOptions });
    // What listens and what the engine and dry-run switch are set on: the router routes to every dealer.
    const front: {
      decider: Decider | undefined;
      dryRun: boolean;
      listen(port: number, host: string): Promise<string>;
      close(drainMs?: number): Promise<void>;
    } = router ?? proxy;
    front.decider = engine;
    const events: RuntimeEvents = new EventEmitter();
    (router ?? proxy).observers.push(journal, metrics, hub, emitTo(events));
    const grader = observe
      ? new LiveGrader(
          (verdict) => {
            metrics!.buyerVerdict(verdict.check, verdict.verdict);
            hub.publish(verdict);
          },
          () => engine?.reportThresholds as Partial<Thresholds> | undefined,
        )
      : undefined;
    if (grader) {
      (router ?? proxy).observers.push(grader);
      cleanups.push(async () => grader.close());
    }
    const proxyHost = opts.host ?? '127.0.0.1';
    const proxyPort = opts.port ?? 8080;
    const url = await listenNamed(PROXY_LISTENER, proxyHost, proxyPort, () => front.listen(proxyPort, proxyHost));
    cleanups.push(() => front.close(0));
    const dealerUrls = router?.dealerUrls();

    const swap = (next: ScenarioEngine): ScenarioEngine => {
      // One assignment: a request reads the decider once, so it never sees half a swap.
      engine = next;
      front.decider = next;
      staging.scenarioSwapped((next.definition as Scenario).guardrails);
      // A scenario's own profile applies unless --profile fixed one for the whole run.
      if (opts.profile === undefined) for (const p of router?.dealers.values() ?? [proxy]) p.profile.configure(next.profile ?? 'auto', 'scenario');
      log(`scenario ${next.name} loaded (seed ${next.seed}, ${ruleCount(next)} rules${next.version !== undefined ? `, fleet version ${next.version}` : ''})`);
      return next;
    };
    /** Back to pass-through: no scenario in force. */
    const clear = (): void => {
      engine = undefined;
      front.decider = undefined;
      staging.scenarioSwapped(undefined);
      log('no scenario: every request is forwarded untouched');
    };
    let operatorDryRun = front.dryRun;
    const staging = new StagingControls(
      {
        replica: fleet?.replica ?? opts.replicaId,
        log,
        hub,
        metrics,
        current: () => (engine ? { definition: engine.definition, name: engine.name, version: engine.version } : undefined),
        async restore(definition) {
          if (definition === null || definition === undefined) {
            await fleet?.publish(null as unknown as Scenario);
            clear();
          } else {
            const scenario = await validated(definition as Scenario);
            swap(engineFor(scenario, await fleet?.publish(scenario)));
          }
        },
        setRule: (id, enabled) => (engine?.setEnabled(id, enabled) ? engine.rules().find((r) => r.id === id) : undefined),
        ruleEnabled: (id) => engine?.rules().find((r) => r.id === id)?.enabled,
        leverMoved(state) {
          // The lever forces dry run; releasing it gives back what the operator had chosen.
          front.dryRun = state.pulled || operatorDryRun;
          const haltedBy = state.pulled ? (state.halted_by ?? `safety lever (${state.by ?? 'unknown'})`) : undefined;
          for (const p of router ? router.dealers.values() : [proxy]) p.haltedBy = haltedBy;
        },
      },
      { auditFile: opts.auditFile, maxTtlMs: opts.maxTtlMs, shared: fleet ? new FleetControl(fleet.store.connection()) : undefined },
    );
    proxy.observers.push(staging);
    staging.scenarioSwapped((engine?.definition as Scenario | undefined)?.guardrails);
    await staging.start();
    cleanups.push(() => staging.close());

    // Another replica published a scenario: validate it here too, then swap.
    await fleet?.follow(
      async (version, json) => {
        try {
          if (isPassThrough(json)) return clear();
          swap(engineFor(await published(version, json), version));
        } catch (err) {
          // One line: the problems, each already naming where it is.
          const problems = err instanceof ScenarioRejectedError ? err.problems.join('; ') : (err as Error).message;
          log(`published scenario version ${version} refused, the running scenario stays: ${problems}`);
        }
      },
      () => engine?.definition,
    );

    // The lever is asked first (a refused change costs no work); the scenario is validated before
    // it is published, so a bad one never reaches the other replicas.
    const useScenario = async (load: () => Promise<Scenario>, change: ChangeOptions = {}): Promise<ScenarioEngine> => {
      const ttlMs = staging.admitScenario(change);
      const scenario = await load();
      const previous = engine && { definition: engine.definition, name: engine.name };
      const next = swap(engineFor(scenario, await fleet?.publish(scenario)));
      await staging.scenarioChanged(previous, ttlMs, change.actor);
      return next;
    };
    const surface: ControlSurface & Pick<Runtime, 'use'> = {
      journal,
      metrics,
      hub,
      get engine() {
        return engine;
      },
      staging,
      use: (input: ScenarioInput, change?: ChangeOptions) => useScenario(async () => validated(input), change),
      replaceScenario: (source: ScenarioSource, change?: ChangeOptions) => useScenario(async () => checked(await loadScenarioSource(source)), change),
      setRuleEnabled(id: string, enabled: boolean, change?: ChangeOptions): RuleStatus | undefined {
        return staging.switchRule(id, enabled, change);
      },
      setDryRun(enabled: boolean, actor = PROXY_ITSELF): void {
        if (observe && !enabled) throw new ApiError(409, 'observe mode: nothing is ever injected; restart without --observe to inject faults');
        operatorDryRun = enabled;
        front.dryRun = enabled || staging.lever.state.pulled;
        void staging.recordAction('dry-run', 'proxy', actor, enabled ? 'on' : 'off');
        log(
          enabled
            ? 'dry run on: faults are journaled, never applied'
            : `dry run off: faults apply again${staging.lever.state.pulled ? ' once the safety lever is released' : ''}`,
        );
      },
      async reset(actor = PROXY_ITSELF): Promise<void> {
        engine?.reset();
        journal.clear();
        grader?.clear();
        await engine?.forgetShared?.();
        await staging.recordAction('reset', 'scenario', actor);
      },
      async resetSession(id: string, actor = PROXY_ITSELF): Promise<void> {
        engine?.resetSession(id);
        journal.clear(id);
        await engine?.forgetShared?.(id);
        await staging.recordAction('session-reset', `session:${id}`, actor);
      },
      sessions: () => engine?.sessions() ?? [],
      report(query: { session?: string } = {}): Report & { observe?: ObservedSection } {
        // Each line records the profile and extension URI in force; the proxy's current ones may differ.
        const report = buildReport(query.session === undefined ? journal.all() : journal.ofSession(query.session), {
          thresholds: engine?.reportThresholds as Partial<Thresholds> | undefined,
        });
        return grader ? { ...report, observe: grader.section() } : report;
      },
      status(): RuntimeStatus {
        const entries = journal.size;
        return {
          version: VERSION,
          uptime_s: Math.round((Date.now() - startedAt) / 1000),
          url,
          // A replay names its recording, not the loopback port its dealer happens to listen on.
          target: replayFile !== undefined ? `${REPLAY_TARGET_PREFIX}${replayFile}` : target!,
          mock_dealer: mock !== undefined || mocks.length > 0,
          ...(dealerUrls ? { dealers: dealerUrls } : {}),
          profile: proxy.profile.profile,
          profile_origin: proxy.profile.origin,
          extension_uri: proxy.profile.extensionUri,
          dry_run: front.dryRun,
          observe,
          scenario: engine?.name ?? null,
          ...(engine?.description ? { description: engine.description } : {}),
          seed: engine?.seed ?? null,
          rules: engine?.rules() ?? [],
          active_faults: engine?.activeFaults() ?? 0,
          journal: { entries, ring_size: journal.ringSize, file: journal.file ?? null, dropped: journal.dropped },
          events: { clients: hub.clientCount, dropped: hub.dropped },
          state: fleet ? fleet.status(engine) : memoryStateStatus(opts.replicaId),
          ...staging.status(),
        };
      },
    };

    const adminPort = opts.adminPort ?? 8081;
    const admin: AdminServer = await listenNamed(ADMIN_LISTENER, adminHost, adminPort, () =>
      startAdminServer(surface, { host: adminHost, port: adminPort, token: adminToken, timeouts, tls: tls.admin?.pair }),
    );
    cleanups.push(() => admin.close());

    log(
      `aap-chaos ${VERSION}: proxy on ${url} -> ${mock ? `embedded mock dealer at ${target}` : replayFile !== undefined ? `dealer replayed from ${replayFile} at ${target}` : target}`,
    );
    for (const [name, base] of Object.entries(dealerUrls ?? {}))
      log(
        `  dealer ${name}: ${base} -> ${router!.dealers.get(name)!.forwarder.origin}${mocks.some((m) => m.url === router!.dealers.get(name)!.forwarder.origin) ? ' (embedded mock)' : ''}`,
      );
    if (proxy.profile.origin === 'default' && proxy.profile.fallbackReason)
      log(`profile ${proxy.profile.profile} (the default): ${proxy.profile.fallbackReason}; it changes when a card naming the AAP extension is seen`);
    log(`admin API on ${admin.url}${adminToken ? ' (token required)' : ''}`);
    log(`profile ${proxy.profile.profile} (${describeProfileOrigin(proxy.profile.origin)}), extension ${proxy.profile.extensionUri}`);
    log(engine ? `scenario ${engine.name} (seed ${engine.seed}, ${ruleCount(engine)} rules)` : 'no scenario: every request is forwarded untouched');
    if (opts.journalFile) log(`journal appended to ${opts.journalFile}`);
    if (observe) log('observe mode: nothing is injected; the report checks grade live traffic per client (GET /report, /events, /metrics)');
    else if (opts.dryRun) log('dry run: faults are journaled, never applied');
    if (recorder) log(`recording exchanges to ${recorder.file} (at most ${recorder.maxBytes} bytes)`);
    if (traces) log(`traces: OTLP http/json to ${traces.url} (from ${traces.from}), service ${traces.serviceName}`);
    if (traces?.protocolNote) log(`traces: ${traces.protocolNote}`);

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        await front.close(opts.drainTimeoutMs ?? 5_000);
        // Every request has finished and journaled itself; the lines reach disk and event clients first.
        await journal.flush();
        await hub.close();
        await admin.close();
        await mock?.close();
        await recorder?.close();
        await replay?.close();
        for (const m of mocks) await m.close();
        await journal.close();
        await staging.close();
        await tracing?.close();
        grader?.close();
        await fleet?.close();
      })());

    return Object.assign(surface, {
      url,
      adminUrl: admin.url,
      proxy,
      router,
      dealerUrls,
      events,
      reloadTls: () => reloadServerTls(tls, proxy.server, admin.server),
      close,
    }) as Runtime;
  } catch (err) {
    await undo();
    throw err;
  }
}

/** Rules of an engine's scenario, counted without building every rule's status (with its sentences) as rules() does. */
function ruleCount(engine: ScenarioEngine): number {
  return (engine.definition as Scenario).rules?.length ?? 0;
}

/** Forwards journal lines to library listeners; a throwing listener never breaks the request path. */
function emitTo(events: RuntimeEvents): RequestObserver {
  return {
    onRequestDone(entry) {
      if (events.listenerCount('request') === 0) return;
      try {
        events.emit('request', entry);
      } catch (err) {
        process.emitWarning(`aap-chaos: a 'request' listener threw: ${(err as Error)?.message ?? String(err)}`);
      }
    },
  };
}

/**
 * SIGINT/SIGTERM: close the runtime in order, then exit 0. A second signal exits at once.
 * Returns a function that removes the handlers.
 */
export function closeOnSignals(runtime: Pick<Runtime, 'close'>, opts: { log?: (line: string) => void; exit?: (code: number) => void } = {}): () => void {
  const log = opts.log ?? (() => {});
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      log(`${signal} again: exiting without waiting`);
      exit(1);
      return;
    }
    received = true;
    log(`${signal}: finishing requests in flight, then flushing the journal`);
    runtime.close().then(
      () => exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${(err as Error)?.message ?? String(err)}`);
        exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
