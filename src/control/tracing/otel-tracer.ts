/**
 * The exchange tracer on the OpenTelemetry SDK: a server span per exchange (a child of the
 * buyer's W3C `traceparent`), a client span around the dealer call whose context the dealer
 * receives, and one `aap_chaos.fault` event per effect that acted. Spans leave in batches from
 * a bounded queue, off the request path; an unreachable or slow collector costs spans (counted),
 * never requests. Loaded by settings.ts only when an endpoint is set.
 *
 * The provider, tracer and propagator are this instance's own, never registered globally: two
 * instances in one process (a test suite, a library user) do not share or replace each other's.
 */
import { displayUrl } from '../../common/display-url.js';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type Span as SdkSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AppliedEffect } from '../../engine/decision.js';
import type { JournalEntry } from '../../journal/entry.js';
import type { ExchangeTrace, ExchangeTracer } from '../../proxy/trace-hooks.js';
import { clientSpanAttributes, exchangeError, faultEventAttributes, serverSpanAttributes, serverSpanName, upstreamFailure } from './span-attributes.js';
import type { Tracing, TracingHooks, TracingSettings } from './types.js';

/** How long close() waits for the last spans to reach the collector. */
const CLOSE_GRACE_MS = 2_000;

const propagator = new W3CTraceContextPropagator();

/**
 * Counts the spans between the end of a span and the end of its export, and drops (and counts)
 * a span that would pass the queue's bound, so the SDK's batch processor never drops one
 * uncounted. An export that fails counts its spans as dropped.
 */
class CountedQueue implements SpanProcessor, SpanExporter {
  private pending = 0;
  private failing = false;
  readonly batches: BatchSpanProcessor;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly settings: TracingSettings,
    private readonly hooks: TracingHooks,
  ) {
    this.batches = new BatchSpanProcessor(this, {
      maxQueueSize: settings.maxQueueSize,
      maxExportBatchSize: settings.maxExportBatchSize,
      scheduledDelayMillis: settings.scheduledDelayMs,
      // The exporter gives up on its own first; this only keeps the queue moving if it never answers.
      exportTimeoutMillis: settings.exportTimeoutMs + 1_000,
    });
  }

  get waiting(): number {
    return this.pending;
  }

  onStart(span: SdkSpan, parent: Context): void {
    this.batches.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if (this.pending >= this.settings.maxQueueSize) {
      this.hooks.onDropped('queue_full', 1);
      return;
    }
    this.pending++;
    this.batches.onEnd(span);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      this.pending = Math.max(0, this.pending - spans.length);
      this.noteResult(result, spans.length);
      done(result);
    });
  }

  /** One line when exports start failing and one when they work again: the state, not every batch. */
  private noteResult(result: ExportResult, count: number): void {
    const failed = result.code !== ExportResultCode.SUCCESS;
    if (failed) this.hooks.onDropped('export_failed', count);
    if (failed === this.failing) return;
    this.failing = failed;
    this.hooks.log(
      failed
        ? `traces: export to ${displayUrl(this.settings.url)} failed (${result.error?.message ?? 'no reason given'}); spans are dropped and counted in aap_chaos_spans_dropped_total`
        : `traces: export to ${displayUrl(this.settings.url)} works again`,
    );
  }

  forceFlush(): Promise<void> {
    return this.batches.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  /** Stops the batches (which flush first), for at most `ms`; spans still waiting are counted as dropped. */
  async close(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), ms)));
    const outcome = await Promise.race([
      this.batches.shutdown().then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      expired,
    ]);
    clearTimeout(timer);
    if (outcome === 'expired' && this.pending > 0) this.hooks.onDropped('shutdown', this.pending);
  }
}

class OtelExchangeTracer implements ExchangeTracer {
  readonly target: URL;

  constructor(
    readonly tracer: Tracer,
    hooks: TracingHooks,
  ) {
    this.target = new URL(hooks.target);
  }

  begin(headers: IncomingHttpHeaders): ExchangeTrace {
    // Without a traceparent the extraction yields the root: the exchange starts a trace of its own.
    const parent = headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const server = this.tracer.startSpan('exchange', { kind: SpanKind.SERVER }, parent);
    return new OtelExchangeTrace(this, server, trace.setSpan(parent, server));
  }
}

class OtelExchangeTrace implements ExchangeTrace {
  private client: Span | undefined;

  constructor(
    private readonly owner: OtelExchangeTracer,
    private readonly server: Span,
    private readonly context: Context,
  ) {}

  upstream(headers: Record<string, string | string[]>): void {
    this.client?.end();
    this.client = this.owner.tracer.startSpan('upstream', { kind: SpanKind.CLIENT }, this.context);
    // The buyer's context is replaced by the client span's (its tracestate carried along).
    delete headers.traceparent;
    delete headers.tracestate;
    propagator.inject(trace.setSpan(this.context, this.client), headers, defaultTextMapSetter);
  }

  end(entry: JournalEntry, applied: readonly AppliedEffect[]): void {
    const { server, client } = this;
    if (client) {
      client.updateName(entry.http_method);
      client.setAttributes(clientSpanAttributes(entry, this.owner.target));
      const failure = upstreamFailure(entry);
      if (failure !== undefined) client.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      client.end();
    }
    if (!server.isRecording()) {
      server.end();
      return;
    }
    server.updateName(serverSpanName(entry));
    server.setAttributes(serverSpanAttributes(entry));
    for (const effect of applied) server.addEvent('aap_chaos.fault', faultEventAttributes(effect, entry.dry_run));
    const error = exchangeError(entry);
    if (error !== undefined) server.setStatus({ code: SpanStatusCode.ERROR, message: error });
    server.end();
  }
}

export function startOtelTracing(settings: TracingSettings, hooks: TracingHooks): Tracing {
  const exporter = new OTLPTraceExporter({ url: settings.url, timeoutMillis: settings.exportTimeoutMs });
  const queue = new CountedQueue(exporter, settings, hooks);
  const resource = resourceFromAttributes({
    'service.name': settings.serviceName,
    'service.version': hooks.version,
    ...(hooks.replica !== undefined ? { 'service.instance.id': hooks.replica } : {}),
  });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [queue] });
  const tracer = new OtelExchangeTracer(provider.getTracer('aap-chaos', hooks.version), hooks);
  return {
    tracer,
    close: () => queue.close(CLOSE_GRACE_MS),
  };
}
