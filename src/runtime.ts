/**
 * The composition root, shared by the CLI and the library: the mock dealer (when there is no
 * target), the proxy, the journal, metrics, live events and the admin API, wired together; the
 * current scenario engine, swapped atomically; and the orderly shutdown. Each step of the start is
 * a function of its own under src/runtime/, called here in order.
 */
import { ChaosMetrics } from './control/metrics.js';
import { EventHub } from './control/events.js';
import { reloadServerTls } from './control/server-tls.js';
import type { StagingControls } from './staging/controls.js';
import type { AdminServer } from './control/admin.js';
import { Journal } from './journal/journal.js';
import { startDealerSide, type DealerSide } from './runtime/dealer-side.js';
import { buildProxy, listenProxy, type Front, type Sinks } from './runtime/front.js';
import { LiveScenario } from './runtime/live-scenario.js';
import { checkStartOptions } from './runtime/start-options.js';
import { loadCardKeys } from './runtime/card-keys.js';
import { startStaging } from './runtime/start-staging.js';
import { StartedParts } from './runtime/started-parts.js';
import { startupLines } from './runtime/startup-lines.js';
import { controlSurface, listenAdmin } from './runtime/surface.js';
import type { Runtime, RuntimeOptions } from './runtime/types.js';

export type { RuntimeStatus } from './control/surface.js';
export { loadScenarioInput, ScenarioRejectedError, type ScenarioInput } from './scenario/input.js';
export type { MockDealerSettings, Runtime, RuntimeEvents, RuntimeOptions } from './runtime/types.js';
export { VERSION } from './runtime/version.js';

export async function startRuntime(given: RuntimeOptions): Promise<Runtime> {
  // Everything that can be wrong with the options is found before anything starts.
  const start = checkStartOptions(given);
  const { opts, log } = start;
  const cardKeys = await loadCardKeys(opts);
  const startedAt = Date.now();
  const metrics: ChaosMetrics = new ChaosMetrics(() => scenario.engine);
  const scenario = await LiveScenario.start(opts, start.env, { log, onFaultOverflow: (rule) => metrics.faultOverflowed(rule) });
  const fleet = scenario.fleet;
  // Precedence: the --profile flag, then the scenario's profile:, then the dealer's card (auto).
  const profile = opts.profile ?? scenario.engine?.profile ?? 'auto';
  const parts = new StartedParts();
  if (fleet) parts.add(() => fleet.close());
  try {
    const journal = new Journal({
      ringSize: opts.journalRing,
      file: opts.journalFile,
      rotation: { maxBytes: opts.journalMaxBytes, keep: opts.journalKeep, compress: opts.journalCompress },
      onDrop: (n) => metrics.journalDropped('file', n),
      onRotate: () => metrics.fileRotated('journal'),
    });
    await journal.open();
    parts.add(() => journal.close());
    const hub = new EventHub(opts.eventsBufferBytes, (n) => metrics.journalDropped('events', n));
    parts.add(() => hub.close());
    const sinks: Sinks = { journal, metrics, hub };

    const side = await startDealerSide(start, { profile, replica: fleet?.replica ?? opts.replicaId, metrics, cardKeys }, parts);
    const front = await buildProxy(start, { profile, scenario, fleet }, side, sinks, parts);
    const url = await listenProxy(start, front, parts);
    const dealerUrls = front.router?.dealerUrls();
    const staging = await startStaging(start, scenario, front, sinks, parts);
    // Another replica may publish a scenario from now on: it is validated here too, then swapped in.
    await scenario.follow();

    const surface = controlSurface(start, scenario, front, sinks, staging, { url, startedAt, side, dealerUrls });
    const admin = await listenAdmin(start, surface, parts);
    for (const line of startupLines(start, scenario, side, front, { url, adminUrl: admin.url, dealerUrls })) log(line);

    const { proxy, router, events } = front;
    return Object.assign(surface, {
      url,
      adminUrl: admin.url,
      proxy,
      router,
      dealerUrls,
      events,
      reloadTls: () => reloadServerTls(start.tls, proxy.server, admin.server),
      reopenFiles: async () => {
        await journal.reopen();
        await staging.audit.reopen();
      },
      close: closeInOrder({ front, sinks, admin, side, staging, fleet: scenario.fleet }, opts.drainTimeoutMs ?? 5_000),
    }) as Runtime;
  } catch (err) {
    await parts.undo();
    throw err;
  }
}

/**
 * The shutdown: requests in flight finish and journal themselves, the lines reach disk and event
 * clients, then every part closes. Idempotent: every call gets the one shutdown.
 */
function closeInOrder(
  run: { front: Front; sinks: Sinks; admin: AdminServer; side: DealerSide; staging: StagingControls; fleet: LiveScenario['fleet'] },
  drainMs: number,
): () => Promise<void> {
  const { front, sinks, admin, side, staging, fleet } = run;
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      await front.listener.close(drainMs);
      // Every request has finished and journaled itself; the lines reach disk and event clients first.
      await sinks.journal.flush();
      await sinks.hub.close();
      await admin.close();
      await side.mock?.close();
      await side.recorder?.close();
      await side.replay?.close();
      for (const m of front.mocks) await m.close();
      await sinks.journal.close();
      await staging.close();
      await side.tracing?.close();
      front.grader?.close();
      await fleet?.close();
    })());
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
