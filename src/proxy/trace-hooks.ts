/**
 * What the request path tells a tracer, when one is configured (--otlp-endpoint): the exchange
 * began, the dealer is about to be called, the exchange is recorded. The proxy knows only this
 * shape; the OpenTelemetry code behind it lives in src/control/tracing/ and is loaded only when
 * an endpoint is set, so without one the request path pays a null check per hook and no more.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AppliedEffect } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';

export interface ExchangeTracer {
  /** Starts the server span of one exchange, a child of the buyer's `traceparent` when it sent one. */
  begin(headers: IncomingHttpHeaders): ExchangeTrace;
}

export interface ExchangeTrace {
  /**
   * The dealer is about to be called with `headers` (a copy the proxy owns): a client span starts,
   * and its context replaces the buyer's `traceparent` / `tracestate` so the dealer joins the trace.
   */
  upstream(headers: Record<string, string | string[]>): void;
  /** The exchange is over: its journal line and the effects that acted, as attributes and events. */
  end(entry: JournalEntry, applied: readonly AppliedEffect[]): void;
}
