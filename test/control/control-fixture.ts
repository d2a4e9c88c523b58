// Shared set-up for the control tests: a runtime on free ports in front of the embedded mock
// dealer, a scenario with one terminal and one modifier rule, and small request helpers.
import type { Test } from 'tap';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import { request, skillRequest, type RawReply } from '../helpers/servers.js';

export const TEST_SCENARIO = `scenario: control-test
description: Searches are throttled; vehicle lookups are slowed a little.
seed: 7
rules:
  - id: throttle-search
    match: { skill: inventory.search }
    error: RATE_LIMITED
    retry_after_ms: 1500
  - id: slow-vehicle
    match: { skill: inventory.vehicle }
    delay: { ms: 1 }
`;

/** Starts a runtime on free ports, closed when the test ends. */
export async function startTestRuntime(t: Test, opts: RuntimeOptions = {}): Promise<Runtime> {
  const runtime = await startRuntime({ port: 0, adminPort: 0, scenario: TEST_SCENARIO, env: {}, ...opts });
  t.teardown(() => runtime.close());
  return runtime;
}

/** One AAP skill call through the proxy. */
export function callSkill(proxyUrl: string, skill: string, id: string | number = 1, data: Record<string, unknown> = {}): Promise<RawReply> {
  return request(`${proxyUrl}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: skillRequest(skill, data, id) });
}

export interface AdminReply extends RawReply {
  json: any;
}

/** One admin API call; `json` is the parsed body when it is JSON. */
export async function adminCall(
  runtime: Pick<Runtime, 'adminUrl'>,
  method: string,
  path: string,
  opts: { body?: string; contentType?: string; token?: string } = {},
): Promise<AdminReply> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined || method !== 'GET') headers['content-type'] = opts.contentType ?? 'application/json';
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const reply = await request(runtime.adminUrl + path, { method, headers, body: opts.body });
  let json: unknown;
  if (String(reply.headers['content-type']).startsWith('application/json')) json = JSON.parse(reply.body.toString('utf8'));
  return { ...reply, json };
}
