/**
 * The proxy in front of the dealer side: one ChaosProxy, or with several dealers a DealerRouter
 * routing /d/NAME/ to one proxy each, with the journal, metrics, events and live grading told of
 * every request.
 */
import { EventEmitter } from 'node:events';
import type { Decider } from '../engine/decision.js';
import type { ChaosMetrics } from '../control/metrics.js';
import type { EventHub } from '../control/events.js';
import { listenNamed, PROXY_LISTENER } from '../http/listen-errors.js';
import type { RequestObserver } from '../journal/entry.js';
import type { Journal } from '../journal/journal.js';
import type { RunningMockDealer } from '../mock/server.js';
import { startDealers } from '../multi-dealer.js';
import { LiveGrader } from '../observe/live-grader.js';
import type { Thresholds } from '../report/thresholds.js';
import { DealerRouter } from '../proxy/dealer-router.js';
import type { ProfileSetting } from '../proxy/profile.js';
import { ChaosProxy } from '../proxy/server.js';
import type { Fleet } from '../state/fleet.js';
import type { DealerSide } from './dealer-side.js';
import type { LiveScenario } from './live-scenario.js';
import type { StartedParts } from './started-parts.js';
import type { StartOptions } from './start-options.js';
import type { RuntimeEvents } from './types.js';

/** What listens, and what the engine and the dry-run switch are set on: the router routes to every dealer. */
export interface Listener {
  decider: Decider | undefined;
  dryRun: boolean;
  listen(port: number, host: string): Promise<string>;
  close(drainMs?: number): Promise<void>;
}

export interface Front {
  listener: Listener;
  /** The proxy; with several dealers, the first dealer's. */
  proxy: ChaosProxy;
  router?: DealerRouter;
  /** Every dealer's proxy. */
  proxies(): Iterable<ChaosProxy>;
  /** The embedded mocks of --mock-dealers. */
  mocks: RunningMockDealer[];
  /** The dealer (or every dealer, comma-separated) the proxy forwards to. */
  target: string;
  events: RuntimeEvents;
  /** The live grading of --observe. */
  grader?: LiveGrader;
  /** Dry run as the operator set it; the safety lever forces it on without changing this. */
  operatorDryRun: boolean;
}

/** The sinks every request is recorded in. */
export interface Sinks {
  journal: Journal;
  metrics: ChaosMetrics;
  hub: EventHub;
}

export async function buildProxy(
  start: StartOptions,
  run: { profile: ProfileSetting; scenario: LiveScenario; fleet: Fleet | undefined },
  side: DealerSide,
  sinks: Sinks,
  parts: StartedParts,
): Promise<Front> {
  const { opts, observe, timeouts } = start;
  const proxyOptions = {
    upstreamTimeoutMs: opts.upstreamTimeoutMs,
    streamIdleTimeoutMs: opts.streamIdleTimeoutMs,
    maxInspectBytes: opts.maxInspectBytes,
    rewriteCard: opts.rewriteCard,
    profile: run.profile,
    // Precedence: the --profile flag, then the scenario's profile:, then the dealer's card (auto).
    profileOrigin: opts.profile !== undefined ? 'flag' : 'scenario',
    extensionUri: opts.extensionUri,
    clientKey: opts.clientKey,
    dryRun: opts.dryRun || observe,
    sessionHeader: opts.sessionHeader,
    redactHeaders: opts.redactHeaders,
    checkDealer: opts.checkDealer,
    timeouts,
    maxBodyBytes: opts.maxBodyBytes,
    tls: opts.dealerTls,
    serverTls: start.tls.proxy?.pair,
    replica: run.fleet?.replica ?? opts.replicaId,
    clientKeySecret: run.fleet?.clientKeySecret,
    recorder: side.recorder,
    allowHosts: opts.allowHosts,
    tracer: side.tracing?.tracer,
    cardSigningKey: side.cardKeys.proxy,
    log: start.log,
  } as const;
  const mocks: RunningMockDealer[] = [];
  const router = side.multi
    ? new DealerRouter(
        await startDealers(opts, { ...opts.mock, cardSigningKey: side.cardKeys.mock, profile: side.mockProfile }, timeouts, (m) => {
          mocks.push(m);
          parts.add(() => m.close());
        }),
        proxyOptions,
      )
    : undefined;
  const target = router ? [...router.dealers.values()].map((p) => p.forwarder.origin).join(', ') : side.target!;
  const proxy = router?.first ?? new ChaosProxy({ target, ...proxyOptions });
  const listener: Listener = router ?? proxy;
  listener.decider = run.scenario.engine;
  const events: RuntimeEvents = new EventEmitter();
  const observed = (router ?? proxy).observers;
  observed.push(sinks.journal, sinks.metrics, sinks.hub, emitTo(events));
  const grader = observe ? liveGrader(run.scenario, sinks) : undefined;
  if (grader) {
    observed.push(grader);
    parts.add(async () => grader.close());
  }
  const proxies = () => (router ? router.dealers.values() : [proxy]);
  return { listener, proxy, router, proxies, mocks, target, events, grader, operatorDryRun: listener.dryRun };
}

/** The proxy's listener opened on --host and --port; the URL it answers on. */
export async function listenProxy({ opts }: StartOptions, front: Front, parts: StartedParts): Promise<string> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 8080;
  const url = await listenNamed(PROXY_LISTENER, host, port, () => front.listener.listen(port, host));
  parts.add(() => front.listener.close(0));
  return url;
}

function liveGrader(scenario: LiveScenario, { metrics, hub }: Sinks): LiveGrader {
  return new LiveGrader(
    (verdict) => {
      metrics.buyerVerdict(verdict.check, verdict.verdict);
      hub.publish(verdict);
    },
    () => scenario.engine?.reportThresholds as Partial<Thresholds> | undefined,
  );
}

/** Forwards journal lines to library listeners; a throwing listener never breaks the request path. */
function emitTo(events: RuntimeEvents): RequestObserver {
  return {
    readsWholeEntry: () => events.listenerCount('request') > 0,
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
