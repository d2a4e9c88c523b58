/**
 * Starts the mock dealer for a test, behind the real proxy (buyer → proxy → mock) unless a test
 * needs the mock's own socket, and closes both when the test ends.
 */
import type { Test } from 'tap';
import { startMockDealer, type MockDealer, type MockDealerOptions } from '../../src/mock/index.js';
import { startProxy } from '../../src/proxy/server.js';
import { AAP_ERROR_TYPE_URL } from '../../src/protocol/codes.js';
import type { SkillReply } from '../helpers/sdk-buyer.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';

export interface DealerUnderTest {
  /** What the buyer talks to: the proxy's URL, or the mock's when direct. */
  url: string;
  mockUrl: string;
  dealer: MockDealer;
}

export async function startDealer(t: Test, opts: MockDealerOptions = {}, route: 'proxy' | 'direct' = 'proxy'): Promise<DealerUnderTest> {
  const mock = await startMockDealer({ ...opts, port: 0 });
  t.teardown(() => mock.close());
  if (route === 'direct') return { url: mock.url, mockUrl: mock.url, dealer: mock.dealer };
  const proxy = await startProxy({ target: mock.url, port: 0, host: '127.0.0.1' });
  t.teardown(() => proxy.close());
  return { url: proxy.url, mockUrl: mock.url, dealer: mock.dealer };
}

/** A raw JSON-RPC POST to `<url>/a2a`, for what the SDK cannot send (bad JSON, odd headers). */
export async function postRpc(
  url: string,
  body: string | Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  // Every error envelope the mock sends must validate under one of the profiles' schemas.
  if (json.error) {
    const problems = [envelopeProblems('1.3', json), envelopeProblems('2.0', json)];
    if (problems.every((p) => p.length > 0)) throw new Error(`invalid error envelope ${JSON.stringify(json)}: ${problems.flat().join('; ')}`);
  }
  return { status: res.status, headers: res.headers, json };
}

/** The reply's payload (`data.data`); fails the test when the call failed or answered another skill. */
export function payload<T = Record<string, unknown>>(t: Test, reply: SkillReply, skill: string): T {
  if (!reply.ok) {
    t.fail(`${skill} failed: ${reply.message}`);
    throw new Error(reply.message);
  }
  t.equal(reply.data.type, `${skill}.response`);
  return reply.data.data as T;
}

/** The aap.error payload under either profile: the bare object (1.3) or the entry found by @type (2.0). */
export function aapError(reply: SkillReply): Record<string, unknown> {
  if (reply.ok) throw new Error(`expected an error reply, got ${JSON.stringify(reply.data)}`);
  const entries = Array.isArray(reply.data) ? (reply.data as Record<string, unknown>[]) : [reply.data as Record<string, unknown>];
  const found = entries.find((e) => e['@type'] === AAP_ERROR_TYPE_URL || e.type === 'aap.error');
  if (!found) throw new Error(`no aap.error in ${JSON.stringify(reply.data)}`);
  return found;
}

/** Asserts the JSON-RPC code and the AAP code of a failed call, and returns the aap.error payload. */
export function expectAapError(t: Test, reply: SkillReply, rpcCode: number, aapCode: string): Record<string, unknown> {
  t.equal(reply.ok ? undefined : reply.envelopeCode, rpcCode, `JSON-RPC ${rpcCode}`);
  if (!reply.ok) {
    // The SDK keeps error.data raw: rebuild the envelope around it and hold it to the profile's schema.
    const profile = Array.isArray(reply.data) ? '2.0' : '1.3';
    const envelope = { jsonrpc: '2.0', id: 1, error: { code: reply.envelopeCode, message: reply.message || 'x', data: reply.data } };
    t.same(envelopeProblems(profile, envelope), [], `a valid ${profile} envelope`);
  }
  const error = aapError(reply);
  t.equal(error.code, aapCode);
  return error;
}

/** Runs one SendStreamingMessage to its end (raw SSE) and returns the id of the task it made. */
export async function streamTask(url: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }),
  });
  const first = (await res.text()).split('\n\n').find((frame) => frame.startsWith('data: ')) ?? '';
  const id = first ? (JSON.parse(first.slice('data: '.length)) as { result?: { task?: { id?: string } } }).result?.task?.id : undefined;
  if (!id) throw new Error(`the stream did not start with a task: ${first}`);
  return id;
}
