/**
 * Everything on the dealer's side of the proxy: the embedded mock dealer when there is no target, the
 * dealer replayed from a recording for a replay:FILE target, the recorder of --record and the
 * tracer of --otlp-endpoint.
 */
import type { ChaosMetrics } from '../control/metrics.js';
import { startTracing } from '../control/tracing/settings.js';
import type { Tracing } from '../control/tracing/types.js';
import { startMockDealer, type RunningMockDealer } from '../mock/server.js';
import { isMultiDealer } from '../multi-dealer.js';
import { OptionError } from '../options.js';
import { REPLAY_TARGET_PREFIX } from '../option-values.js';
import type { Profile } from '../protocol/codes.js';
import type { ProfileSetting } from '../proxy/profile.js';
import { Recorder, RecordingOpenError } from '../recording/recorder.js';
import type { StartedParts } from './started-parts.js';
import type { StartOptions } from './start-options.js';
import { VERSION } from './version.js';
import type { CardKeys } from './card-keys.js';

export interface DealerSide {
  /** The one dealer's URL; undefined with several dealers (--dealer, --mock-dealers). */
  target: string | undefined;
  /** Several dealers behind one listener. */
  multi: boolean;
  /** The embedded mock dealer, when there is no target. */
  mock?: RunningMockDealer;
  /** The embedded mocks' profile: --mock-profile, else the run's when fixed at start, else theirs (1.3). */
  mockProfile: Profile | undefined;
  /** The recording a replay:FILE target answers from. */
  replayFile?: string;
  replay?: { close(): Promise<void> };
  recorder?: Recorder;
  tracing?: Tracing;
  /** The keys that sign cards: the proxy's, and the embedded mocks'. */
  cardKeys: CardKeys;
}

export async function startDealerSide(
  start: StartOptions,
  run: { profile: ProfileSetting; replica: string | undefined; metrics: ChaosMetrics; cardKeys: CardKeys },
  parts: StartedParts,
): Promise<DealerSide> {
  const { opts, log, timeouts } = start;
  // --mock-profile, else the profile fixed at start (flag, then scenario), else 1.3: so a 2.0 run
  // has a 2.0 dealer behind it, whose card names the 2.0 URI that -32008 must name.
  const side: DealerSide = {
    target: opts.target,
    multi: isMultiDealer(opts),
    mockProfile: opts.mock?.profile ?? (run.profile !== 'auto' ? run.profile : undefined),
    cardKeys: run.cardKeys,
  };
  if (!side.target && !side.multi) {
    const mock = await startMockDealer({ ...opts.mock, cardSigningKey: run.cardKeys.mock, profile: side.mockProfile, port: 0, host: '127.0.0.1', timeouts });
    parts.add(() => mock.close());
    side.mock = mock;
    side.target = mock.url;
  }
  if (side.target?.startsWith(REPLAY_TARGET_PREFIX)) {
    const file = side.target.slice(REPLAY_TARGET_PREFIX.length);
    // Loaded on use: a live run never pays for the replay's modules.
    const { startReplayDealer } = await import('../replay/dealer.js');
    const started = await startReplayDealer({ ...opts.replay, file, port: 0, host: '127.0.0.1', timeouts, log, secretHeaders: opts.redactHeaders });
    parts.add(() => started.close());
    side.replayFile = file;
    side.replay = started;
    side.target = started.url;
    log(`replaying ${file}: ${started.recording.exchanges.length} exchanges${started.recording.card ? ' and the agent card' : ', no agent card'}`);
  }
  if (opts.record !== undefined) side.recorder = openRecorder(start, side.target, parts);
  if (start.traces) {
    const tracing = await startTracing(start.traces, {
      target: side.target ?? 'several dealers',
      version: VERSION,
      replica: run.replica,
      onDropped: (reason, n) => run.metrics.spanDropped(reason, n),
      log,
    });
    parts.add(() => tracing.close());
    side.tracing = tracing;
  }
  return side;
}

function openRecorder({ opts }: StartOptions, target: string | undefined, parts: StartedParts): Recorder {
  // A recording is one dealer's answers; several dealers would need one file each.
  if (target === undefined) throw new OptionError('--record: not with --dealer or --mock-dealers (a recording holds one dealer)');
  let recorder: Recorder;
  try {
    // A full recording must be noticed: without a log (the library), it becomes a process warning.
    const tell = opts.log ?? ((line: string) => process.emitWarning(`aap-chaos: ${line}`));
    recorder = Recorder.open({ file: opts.record!, maxBytes: opts.recordMaxBytes, target, log: tell, secretHeaders: opts.redactHeaders });
  } catch (err) {
    if (err instanceof RecordingOpenError) throw new OptionError(`--record: ${err.message}`);
    throw err;
  }
  parts.add(() => recorder.close());
  return recorder;
}
