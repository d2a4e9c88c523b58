/**
 * Traces (--otlp-endpoint, or the standard OTEL_* variables): where spans go and how many may
 * wait, read and checked before anything starts, and the OpenTelemetry SDK loaded only then.
 * Without an endpoint nothing of the SDK is imported and the proxy gets no tracer, so the request
 * path runs no tracing code (src/proxy/trace-hooks.ts).
 */
import { displayUrl } from '../../common/display-url.js';
import { OptionError } from '../../options.js';
import type { Tracing, TracingHooks, TracingSettings } from './types.js';

/** The variables read here, besides the ones the OTLP exporter reads itself (headers, compression, certificates). */
export const TRACING_ENV = {
  endpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  serviceName: 'OTEL_SERVICE_NAME',
  disabled: 'OTEL_SDK_DISABLED',
  protocol: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  tracesProtocol: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
} as const;

/** Batch limits, by the variable that sets each (names and defaults of the OpenTelemetry SDK). */
const NUMBERS = {
  maxQueueSize: { name: 'OTEL_BSP_MAX_QUEUE_SIZE', fallback: 2048, min: 1 },
  maxExportBatchSize: { name: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', fallback: 512, min: 1 },
  scheduledDelayMs: { name: 'OTEL_BSP_SCHEDULE_DELAY', fallback: 5000, min: 0 },
  exportTimeoutMs: { name: 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', alias: 'OTEL_EXPORTER_OTLP_TIMEOUT', fallback: 10_000, min: 1 },
} as const;

const TRACES_PATH = 'v1/traces';

/** A base endpoint gets /v1/traces added, as the standard variable does; a URL that already ends with it is kept. */
function tracesUrl(base: string): string {
  const url = new URL(base);
  if (url.pathname.replace(/\/+$/, '').endsWith(`/${TRACES_PATH}`)) return base;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${TRACES_PATH}`;
  return url.toString();
}

function checkedUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OptionError(`${where}: ${JSON.stringify(displayUrl(value))} is not a URL (use e.g. http://127.0.0.1:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OptionError(`${where}: ${JSON.stringify(displayUrl(value))} is not an http:// or https:// URL`);
  return value;
}

function numberFrom(env: NodeJS.ProcessEnv, spec: { name: string; alias?: string; fallback: number; min: number }): number {
  const name = env[spec.name] !== undefined ? spec.name : spec.alias !== undefined && env[spec.alias] !== undefined ? spec.alias : undefined;
  if (name === undefined || env[name]!.trim() === '') return spec.fallback;
  const text = env[name]!.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < spec.min) throw new OptionError(`${name}: ${JSON.stringify(text)} is not a whole number ≥ ${spec.min}`);
  return n;
}

/**
 * The tracing settings, or undefined when no endpoint is set. `endpoint` is the --otlp-endpoint
 * flag (or the otlpEndpoint option), already checked; it wins over the variables. A bad variable
 * throws an OptionError naming it.
 */
export function tracingSettings(endpoint: string | undefined, env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const endpointLabel = '--otlp-endpoint';
  let url: string;
  let from: string;
  if (endpoint !== undefined) {
    url = tracesUrl(checkedUrl(endpoint, endpointLabel));
    from = endpointLabel;
  } else {
    if (/^\s*true\s*$/i.test(env[TRACING_ENV.disabled] ?? '')) return undefined;
    const traces = env[TRACING_ENV.tracesEndpoint]?.trim();
    const base = env[TRACING_ENV.endpoint]?.trim();
    if (traces) [url, from] = [checkedUrl(traces, TRACING_ENV.tracesEndpoint), TRACING_ENV.tracesEndpoint];
    else if (base) [url, from] = [tracesUrl(checkedUrl(base, TRACING_ENV.endpoint)), TRACING_ENV.endpoint];
    else return undefined;
  }
  const settings: TracingSettings = {
    url,
    from,
    serviceName: env[TRACING_ENV.serviceName]?.trim() || 'aap-chaos',
    maxQueueSize: numberFrom(env, NUMBERS.maxQueueSize),
    maxExportBatchSize: numberFrom(env, NUMBERS.maxExportBatchSize),
    scheduledDelayMs: numberFrom(env, NUMBERS.scheduledDelayMs),
    exportTimeoutMs: numberFrom(env, NUMBERS.exportTimeoutMs),
  };
  settings.maxExportBatchSize = Math.min(settings.maxExportBatchSize, settings.maxQueueSize);
  for (const name of [TRACING_ENV.tracesProtocol, TRACING_ENV.protocol]) {
    const protocol = env[name]?.trim();
    if (protocol && protocol !== 'http/json') {
      settings.protocolNote = `${name}=${protocol} is not followed: traces are sent as OTLP http/json`;
      break;
    }
  }
  return settings;
}

/** Loads the OpenTelemetry SDK (only now) and starts exporting. */
export async function startTracing(settings: TracingSettings, hooks: TracingHooks): Promise<Tracing> {
  const { startOtelTracing } = await import('./otel-tracer.js');
  return startOtelTracing(settings, hooks);
}
