/** What the tracing loader and the OpenTelemetry code share (kept apart so neither imports the other). */
import type { ExchangeTracer } from '../../proxy/trace-hooks.js';

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  /** What set the URL: the flag or option, or the variable named. */
  from: string;
  serviceName: string;
  /** Spans waiting for export beyond this are dropped (and counted). */
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
  /** Why a protocol variable is not followed (traces go as http/json), for the start-up log. */
  protocolNote?: string;
}

/** Why spans were lost: the queue was full, the collector did not take them, or shutdown cut them off. */
export type SpanDropReason = 'queue_full' | 'export_failed' | 'shutdown';

export interface TracingHooks {
  /** The dealer the proxy calls (origin and base path), for the client spans' `url.full`. */
  target: string;
  version: string;
  replica?: string;
  onDropped(reason: SpanDropReason, count: number): void;
  log(line: string): void;
}

export interface Tracing {
  readonly tracer: ExchangeTracer;
  /** Exports what is queued, for a bounded time; what is left is counted as dropped. */
  close(): Promise<void>;
}
