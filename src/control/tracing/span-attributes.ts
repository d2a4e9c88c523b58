/**
 * What a span says of one exchange, read from its journal line: the OpenTelemetry JSON-RPC and
 * HTTP names where a convention exists, `aap.*` for what AAP defines and `aap_chaos.*` for what
 * the proxy decided. docs/control.md ("Traces") lists every name; plain data, no SDK here.
 */
import type { AppliedEffect } from '../../engine/decision.js';
import type { JournalEntry } from '../../journal/entry.js';

export type SpanAttributes = Record<string, string | number | boolean>;

/** The server span's name: the JSON-RPC method, else the HTTP method (the conventions' names). */
export function serverSpanName(entry: JournalEntry): string {
  return entry.method ?? entry.http_method;
}

/** Why the buyer got no usable answer, or undefined when it did: the span's error. */
export function exchangeError(entry: JournalEntry): string | undefined {
  if (entry.outcome === 'error') return entry.error_code ?? String(entry.rpc_code ?? 'error');
  if (entry.outcome === 'unknown') return entry.unknown_cause ?? 'lost';
  return undefined;
}

export function serverSpanAttributes(entry: JournalEntry): SpanAttributes {
  const a: SpanAttributes = {
    'http.request.method': entry.http_method,
    'url.path': entry.path,
    'http.response.status_code': entry.status,
  };
  if (entry.method !== undefined) {
    a['rpc.system.name'] = 'jsonrpc';
    a['rpc.method'] = entry.method;
    // The id as the buyer sent it, as text; a notification (no id) or a null id has none to give.
    if (entry.rpc_id !== undefined && entry.rpc_id !== null) a['jsonrpc.request.id'] = String(entry.rpc_id);
    if (entry.rpc_code !== undefined) a['rpc.response.status_code'] = String(entry.rpc_code);
  }
  if (entry.skill !== undefined) a['aap.skill'] = entry.skill;
  if (entry.profile !== undefined) a['aap.profile'] = entry.profile;
  if (entry.error_code !== undefined) a['aap.error.code'] = entry.error_code;
  if (entry.outcome !== undefined) a['aap.outcome'] = entry.outcome;
  const error = exchangeError(entry);
  if (error !== undefined) a['error.type'] = error;
  a['aap_chaos.source'] = entry.source;
  a['aap_chaos.journal.id'] = entry.id;
  if (entry.session !== undefined) a['aap_chaos.session'] = entry.session;
  if (entry.replica !== undefined) a['aap_chaos.replica'] = entry.replica;
  if (entry.dry_run) a['aap_chaos.dry_run'] = true;
  return a;
}

/** The `aap_chaos.fault` event of one effect that acted (or, under dry run, would have). */
export function faultEventAttributes(applied: AppliedEffect, dryRun: boolean): SpanAttributes {
  const a: SpanAttributes = {
    'aap_chaos.rule.id': applied.rule,
    'aap_chaos.fault.effect': applied.effect,
    'aap_chaos.fault.explain': applied.sentence,
  };
  if (dryRun) a['aap_chaos.dry_run'] = true;
  return a;
}

/** The client span's HTTP attributes, once the dealer answered (or did not). */
export function clientSpanAttributes(entry: JournalEntry, target: URL): SpanAttributes {
  const a: SpanAttributes = {
    'http.request.method': entry.http_method,
    'server.address': target.hostname,
    'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
    // The path only: a query string may carry what must not leave the proxy.
    'url.full': `${target.origin}${target.pathname.replace(/\/+$/, '')}${entry.path}`,
  };
  if (entry.upstream_status !== undefined) a['http.response.status_code'] = entry.upstream_status;
  return a;
}

/** The dealer call failed (no reply headers): the proxy answered for it. */
export function upstreamFailure(entry: JournalEntry): string | undefined {
  if (entry.upstream_status !== undefined || entry.source !== 'proxy') return undefined;
  return entry.notes?.[0] ?? 'the dealer could not be reached';
}
