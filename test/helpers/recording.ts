// Recording and replaying through real proxies: the buyer's requests as raw JSON-RPC over fetch
// (exact ids, headers a recording must not keep), and an SSE reader that times each event.
import { startMockDealer, type RunningMockDealer } from '../../src/mock/index.js';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import type { Test } from 'tap';

/** The mock dealer's clock, pinned so that consent and appointment rules answer the same every run. */
export const NOW = new Date('2030-01-07T12:00:00Z');

export const CUSTOMER = { first_name: 'Zyxella', last_name: 'Quortwain', email: 'ada.lovelace@example.com', phone: '+15555550123', preferred_contact: 'email' };
export const LEAD = {
  customer: CUSTOMER,
  consent: {
    granted_at: '2030-01-06T10:00:00Z',
    allowed_channels: ['email', 'phone'],
    consent_text: 'I agree to be contacted about this vehicle.',
    scope: ['lead_submission'],
  },
  source_agent: { name: 'test-buyer' },
  idempotency_key: 'lead-key-1',
};

/** Headers a buyer sends that no recording may keep. */
export const SECRET_HEADERS = { authorization: 'Bearer s3cret-bearer-token', 'x-api-key': 'k3y-never-stored', cookie: 'session=c00kie' };

export function skillBody(
  skill: string,
  data: Record<string, unknown>,
  id: string | number,
  opts: { method?: string; contextId?: string } = {},
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    messageId: `m-${id}-${Math.random()}`,
    role: 'ROLE_USER',
    parts: [{ data: { type: `${skill}.request`, ...data } }],
  };
  if (opts.contextId) message.contextId = opts.contextId;
  return { jsonrpc: '2.0', id, method: opts.method ?? 'SendMessage', params: { message } };
}

export async function rpc(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Each SSE event's JSON data and when it arrived (ms after the request was sent). */
export async function streamEvents(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ atMs: number; data: any }[]> {
  const start = performance.now();
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`not a stream: ${res.status} ${await res.text()}`);
  const events: { atMs: number; data: any }[] = [];
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const at = performance.now() - start;
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf('\n\n')) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      events.push({ atMs: at, data: JSON.parse(data) });
    }
  }
  return events;
}

/** Gaps between consecutive events, in ms. */
export const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

export async function mockDealer(t: Test, opts: Parameters<typeof startMockDealer>[0] = {}): Promise<RunningMockDealer> {
  const mock = await startMockDealer({ streaming: true, now: () => NOW, port: 0, ...opts });
  t.teardown(() => mock.close());
  return mock;
}

export async function runtime(t: Test, opts: RuntimeOptions): Promise<Runtime> {
  const r = await startRuntime({ port: 0, adminPort: 0, ...opts });
  t.teardown(() => r.close());
  return r;
}
