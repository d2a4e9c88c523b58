/**
 * What a run is started with and what it hands back. The options that have a flag are typed from
 * their rows in src/options.ts, where each row's `describe` (its --help text) documents it; a
 * value is given as the flag takes it or as the parsed value (a duration as "30s" or as 30000).
 */
import type { EventEmitter } from 'node:events';
import type { ScenarioEngine } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { ChaosProxy } from '../proxy/server.js';
import type { DealerRouter } from '../proxy/dealer-router.js';
import type { DealerTls } from '../proxy/forward.js';
import type { ChangeOptions, ControlSurface } from '../control/surface.js';
import type { ScenarioInput } from '../scenario/input.js';
import type { ReplaySettings } from '../replay/dealer.js';
import type { LIBRARY_OPTIONS, MOCK_OPTIONS, OptionValues, RUN_OPTIONS } from '../options.js';
import type { DealerTarget } from '../option-values.js';

/** The embedded mock dealer's options (`--mock-profile`, `--mock-extension-uri`, `--mock-streaming`, `--inventory`). */
export type MockDealerSettings = OptionValues<typeof MOCK_OPTIONS>;

/** One field per row of RUN_OPTIONS and LIBRARY_OPTIONS, plus the options no single flag sets. */
export interface RuntimeOptions extends Omit<OptionValues<typeof RUN_OPTIONS>, 'dealers'>, OptionValues<typeof LIBRARY_OPTIONS> {
  /** Several dealers behind one listener, each under /d/NAME/: `{name, url}` or `"NAME=URL"` as `--dealer` takes it; not with `target`. */
  dealers?: Array<DealerTarget | string>;
  /** A scenario file, a built-in scenario's name or a scenario object (`--scenario`). */
  scenario?: ScenarioInput;
  /** How a `replay:FILE` target replays its recording. */
  replay?: ReplaySettings;
  mock?: MockDealerSettings;
  /** TLS trust for an https:// target: extra CA certificates (PEM text, as read from `--ca`) and/or no verification (`--insecure`). */
  dealerTls?: DealerTls;
  /** Where start-up lines go (default: nowhere). */
  log?: (line: string) => void;
  /** Where the admin token and OTEL_* variables are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The options once checked: every value parsed, dealers named. */
export type CheckedOptions = Omit<RuntimeOptions, 'dealers'> & { dealers?: DealerTarget[] };

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
  /** Closes the journal and audit files and opens their paths again (after logrotate moved them; SIGHUP). */
  reopenFiles(): Promise<void>;
  /** Validates and swaps the scenario (a file may be named); throws ScenarioRejectedError and keeps the old one when invalid. */
  use(input: ScenarioInput, change?: ChangeOptions): Promise<ScenarioEngine>;
  /** Stops accepting, drains requests in flight, flushes the journal, closes event clients. Idempotent. */
  close(): Promise<void>;
}
