// An OTLP/HTTP trace receiver on loopback: decodes the JSON the real exporter sends
// (OTLP JSON encoding: hex ids, attributes as {key, value: {stringValue|intValue|boolValue}}).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base URL, as --otlp-endpoint takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Paths the exporter posted to. */
  paths: string[];
  /** Every body as it was posted. */
  raw: string[];
  /** Resolves once `predicate` holds for the spans received so far (checked on each export). */
  until(predicate: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: { key: string; value: OtlpValue }[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const raw: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      raw.push(Buffer.concat(chunks).toString('utf8'));
      const body = JSON.parse(raw.at(-1)!) as { resourceSpans: any[] };
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
              status: s.status,
              resource,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    paths,
    raw,
    until: (predicate, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (predicate(spans)) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the expected spans did not arrive within ${ms} ms; got ${spans.length}: ${spans.map((s) => s.name).join(', ')}`));
        }, ms);
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
