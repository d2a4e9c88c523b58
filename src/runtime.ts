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
import { buildReport, type Report } from './journal/report.js';
import type { Thresholds } from './journal/thresholds.js';
import { startMockDealer, type RunningMockDealer } from './mock/server.js';
import type { Profile } from './protocol/codes.js';
import { describeProfileOrigin, type ProfileOrigin, type ProfileSetting } from './proxy/profile.js';
import { ChaosProxy } from './proxy/server.js';
import type { RequestObserver } from './journal/entry.js';
import { formatProblem, loadScenarioRef, loadScenarioText, type LoadResult, type Scenario } from './scenario/load.js';
import { ADMIN_TOKEN_ENV, assertAdminExposureAllowed } from './control/auth.js';
import { startAdminServer, type AdminServer } from './control/admin.js';
import type { ControlSurface, RuntimeStatus, ScenarioInput } from './control/surface.js';
import { EventHub } from './control/events.js';
import type { DealerTls } from './proxy/forward.js';
import { ChaosMetrics } from './control/metrics.js';
import { checkOptions, type DealerTarget } from './options.js';
import { isMultiDealer, startDealers } from './multi-dealer.js';
import { DealerRouter } from './proxy/dealer-router.js';
import { ADMIN_LISTENER, listenNamed, PROXY_LISTENER } from './listen-errors.js';
import { Fleet, memoryStateStatus, stateUrlOf } from './state/fleet.js';
import type { StateStatus } from './state/store.js';

export type { RuntimeStatus, ScenarioInput } from './control/surface.js';

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
  /** The dealer to stand in front of; without one, the embedded mock dealer is started. */
  target?: string;
  /** Several dealers behind one listener, each under /d/NAME/ (`--dealer NAME=URL`, repeatable); not with `target`. */
  dealers?: Array<DealerTarget | string>;
  /** Start this many embedded mock dealers (m1…mN), each under /d/NAME/ (`--mock-dealers N`). */
  mockDealers?: number;
  /** Proxy port (default 8080; 0 picks a free one). */
  port?: number;
  host?: string;
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
  /** Where start-up lines go (default: nowhere). */
  log?: (line: string) => void;
  /** Where the admin token variable is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A scenario that failed validation; `problems` are formatted exactly as `aap-chaos validate` prints them. */
export class ScenarioRejectedError extends Error {
  override name = 'ScenarioRejectedError';
  constructor(readonly problems: string[]) {
    super(`scenario rejected, ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
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
  /** Stops accepting, drains requests in flight, flushes the journal, closes event clients. Idempotent. */
  close(): Promise<void>;
}

/** Turns any accepted scenario form into a validated scenario. */
export async function loadScenarioInput(input: ScenarioInput): Promise<LoadResult> {
  // An object is checked as the JSON text it stands for: JSON.parse reads it back (a copy, so the
  // caller's object gets no defaults), and the YAML parser runs only to place a problem on a line.
  if (typeof input !== 'string') return loadScenarioText(JSON.stringify(input, null, 2), 'scenario object');
  const trimmed = input.trim();
  if (trimmed.includes('\n') || trimmed.startsWith('{')) return loadScenarioText(input, 'scenario text');
  return loadScenarioRef(trimmed);
}

export async function startRuntime(given: RuntimeOptions): Promise<Runtime> {
  // Every option is checked the way its flag is, before anything starts.
  const opts = checkOptions(given as RuntimeOptions & Record<string, unknown>, 'library');
  const log = opts.log ?? (() => {});
  const adminHost = opts.adminHost ?? '127.0.0.1';
  const adminToken = opts.adminToken || (opts.env ?? process.env)[ADMIN_TOKEN_ENV] || undefined;
  assertAdminExposureAllowed(adminHost, adminToken);

  // Made before the metrics exist (the first scenario decides the profile); they are told once they do.
  let metrics: ChaosMetrics | undefined;
  const onFaultOverflow = (rule: string) => metrics?.faultOverflowed(rule);
  const validated = async (input: ScenarioInput): Promise<Scenario> => {
    const result = await loadScenarioInput(input);
    if (!result.ok) throw new ScenarioRejectedError(result.problems.map(formatProblem));
    return result.scenario;
  };
  const stateUrl = stateUrlOf(opts.state, opts.env ?? process.env);
  const own = opts.scenario !== undefined ? await validated(opts.scenario) : undefined;
  const fleet = stateUrl !== undefined ? await Fleet.start(stateUrl, opts.replicaId, opts.state === undefined) : undefined;
  const engineFor = (scenario: Scenario, version?: number) =>
    createEngine(scenario, { seed: opts.seed, allowHeaderFaults: opts.allowHeaderFaults, onFaultOverflow, replicaId: opts.replicaId, ...(fleet && version !== undefined ? fleet.engineOptions(scenario, version) : {}) });
  let engine: ScenarioEngine | undefined;
  try {
    // In a fleet the scenario already published wins over this replica's own.
    const adopted = await fleet?.adopt(own);
    engine = adopted ? engineFor(await validated(adopted.definition as Scenario), adopted.version) : own && engineFor(own);
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

    const proxyOptions = {
      upstreamTimeoutMs: opts.upstreamTimeoutMs,
      streamIdleTimeoutMs: opts.streamIdleTimeoutMs,
      maxInspectBytes: opts.maxInspectBytes,
      rewriteCard: opts.rewriteCard,
      profile,
      profileOrigin,
      extensionUri: opts.extensionUri,
      clientKey: opts.clientKey,
      dryRun: opts.dryRun,
      sessionHeader: opts.sessionHeader,
      checkDealer: opts.checkDealer,
      timeouts,
      maxBodyBytes: opts.maxBodyBytes,
      tls: opts.dealerTls,
      replica: fleet?.replica ?? opts.replicaId,
      clientKeySecret: fleet?.clientKeySecret,
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
    const front: { decider: Decider | undefined; dryRun: boolean; listen(port: number, host: string): Promise<string>; close(drainMs?: number): Promise<void> } = router ?? proxy;
    front.decider = engine;
    const events: RuntimeEvents = new EventEmitter();
    (router ?? proxy).observers.push(journal, metrics, hub, emitTo(events));
    const proxyHost = opts.host ?? '127.0.0.1';
    const proxyPort = opts.port ?? 8080;
    const url = await listenNamed(PROXY_LISTENER, proxyHost, proxyPort, () => front.listen(proxyPort, proxyHost));
    cleanups.push(() => front.close(0));
    const dealerUrls = router?.dealerUrls();

    const swap = (next: ScenarioEngine): ScenarioEngine => {
      // One assignment: a request reads the decider once, so it never sees half a swap.
      engine = next;
      front.decider = next;
      // A scenario's own profile applies unless --profile fixed one for the whole run.
      if (opts.profile === undefined) for (const p of router?.dealers.values() ?? [proxy]) p.profile.configure(next.profile ?? 'auto', 'scenario');
      log(`scenario ${next.name} loaded (seed ${next.seed}, ${ruleCount(next)} rules${next.version !== undefined ? `, fleet version ${next.version}` : ''})`);
      return next;
    };
    // Another replica published a scenario: validate it here too, then swap.
    await fleet?.follow(async (version, definition) => {
      try {
        swap(engineFor(await validated(definition as Scenario), version));
      } catch (err) {
        log(`published scenario version ${version} refused: ${(err as Error).message}`);
      }
    }, () => engine?.definition);

    const surface: ControlSurface = {
      journal,
      metrics,
      hub,
      get engine() {
        return engine;
      },
      async use(input: ScenarioInput): Promise<ScenarioEngine> {
        const scenario = await validated(input);
        // Validated before it is published: a bad scenario never reaches the other replicas.
        return swap(engineFor(scenario, await fleet?.publish(scenario)));
      },
      setRuleEnabled(id: string, enabled: boolean): RuleStatus | undefined {
        if (!engine?.setEnabled(id, enabled)) return undefined;
        return engine.rules().find((r) => r.id === id);
      },
      setDryRun(enabled: boolean): void {
        front.dryRun = enabled;
        log(enabled ? 'dry run on: faults are journaled, never applied' : 'dry run off: faults apply again');
      },
      async reset(): Promise<void> {
        engine?.reset();
        journal.clear();
        await engine?.forgetShared?.();
      },
      async resetSession(id: string): Promise<void> {
        engine?.resetSession(id);
        journal.clear(id);
        await engine?.forgetShared?.(id);
      },
      sessions: () => engine?.sessions() ?? [],
      report(query: { session?: string } = {}): Report {
        // Each line records the profile and extension URI in force; the proxy's current ones may differ.
        return buildReport(query.session === undefined ? journal.all() : journal.ofSession(query.session), {
          thresholds: engine?.reportThresholds as Partial<Thresholds> | undefined,
        });
      },
      status(): RuntimeStatus {
        const entries = journal.size;
        return {
          version: VERSION,
          uptime_s: Math.round((Date.now() - startedAt) / 1000),
          url,
          target: target!,
          mock_dealer: mock !== undefined || mocks.length > 0,
          ...(dealerUrls ? { dealers: dealerUrls } : {}),
          profile: proxy.profile.profile,
          profile_origin: proxy.profile.origin,
          extension_uri: proxy.profile.extensionUri,
          dry_run: proxy.dryRun,
          scenario: engine?.name ?? null,
          ...(engine?.description ? { description: engine.description } : {}),
          seed: engine?.seed ?? null,
          rules: engine?.rules() ?? [],
          active_faults: engine?.activeFaults() ?? 0,
          journal: { entries, ring_size: journal.ringSize, file: journal.file ?? null, dropped: journal.dropped },
          events: { clients: hub.clientCount, dropped: hub.dropped },
          state: fleet ? fleet.status(engine) : memoryStateStatus(opts.replicaId),
        };
      },
    };

    const adminPort = opts.adminPort ?? 8081;
    const admin: AdminServer = await listenNamed(ADMIN_LISTENER, adminHost, adminPort, () => startAdminServer(surface, { host: adminHost, port: adminPort, token: adminToken, timeouts }));
    cleanups.push(() => admin.close());

    log(`aap-chaos ${VERSION}: proxy on ${url} -> ${mock ? `embedded mock dealer at ${target}` : target}`);
    for (const [name, base] of Object.entries(dealerUrls ?? {})) log(`  dealer ${name}: ${base} -> ${router!.dealers.get(name)!.forwarder.origin}${mocks.some((m) => m.url === router!.dealers.get(name)!.forwarder.origin) ? ' (embedded mock)' : ''}`);
    if (proxy.profile.origin === 'default' && proxy.profile.fallbackReason)
      log(`profile ${proxy.profile.profile} (the default): ${proxy.profile.fallbackReason}; it changes when a card naming the AAP extension is seen`);
    log(`admin API on ${admin.url}${adminToken ? ' (token required)' : ''}`);
    log(`profile ${proxy.profile.profile} (${describeProfileOrigin(proxy.profile.origin)}), extension ${proxy.profile.extensionUri}`);
    log(engine ? `scenario ${engine.name} (seed ${engine.seed}, ${ruleCount(engine)} rules)` : 'no scenario: every request is forwarded untouched');
    if (opts.journalFile) log(`journal appended to ${opts.journalFile}`);
    if (opts.dryRun) log('dry run: faults are journaled, never applied');

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        await front.close(opts.drainTimeoutMs ?? 5_000);
        // Every request has finished and journaled itself; the lines reach disk and event clients first.
        await journal.flush();
        await hub.close();
        await admin.close();
        await mock?.close();
        for (const m of mocks) await m.close();
        await journal.close();
        await fleet?.close();
      })());

    return Object.assign(surface, {
      url,
      adminUrl: admin.url,
      proxy,
      router,
      dealerUrls,
      events,
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
