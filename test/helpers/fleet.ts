// Replicas of one fleet in one test: a real redis-server, one small dealer, N proxies sharing the store.
import type { Test } from 'tap';
import { startRuntime, type Runtime, type ScenarioInput } from '../../src/runtime.js';
import { dealerReply } from './chaos-harness.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { request, skillRequest, startUpstream, type Upstream } from './servers.js';

/** A scenario without rules, and one under which every search fails: two states a fleet switches between. */
export const calm = { scenario: 'calm', rules: [] };
export const failing = `scenario: failing
rules:
  - id: every-search-fails
    match: { skill: inventory.search }
    error: INTERNAL_ERROR
`;

export interface TestFleet {
  redis: TestRedis;
  dealer: Upstream;
  replicas: Runtime[];
  /** Starts one more replica on the same store. */
  add(scenario?: ScenarioInput, id?: string): Promise<Runtime>;
}

export async function startFleet(t: Test, count: number, scenario: ScenarioInput, extra: { journalDir?: string; auditDir?: string } = {}): Promise<TestFleet> {
  const redis = await startRedis(t);
  const dealer = await startUpstream((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(dealerReply(body));
  });
  const replicas: Runtime[] = [];
  const add = async (s: ScenarioInput | undefined = scenario, id = `r${replicas.length + 1}`) => {
    const journalFile = extra.journalDir ? `${extra.journalDir}/${id}.jsonl` : undefined;
    const auditFile = extra.auditDir ? `${extra.auditDir}/${id}.audit.jsonl` : undefined;
    const r = await startRuntime({
      target: dealer.url,
      port: 0,
      adminPort: 0,
      profile: '1.3',
      scenario: s,
      state: redis.url,
      replicaId: id,
      journalFile,
      auditFile,
    });
    replicas.push(r);
    return r;
  };
  t.teardown(async () => {
    for (const r of replicas) await r.close();
    await dealer.close();
    await redis.close();
  });
  for (let i = 0; i < count; i++) await add();
  return { redis, dealer, replicas, add };
}

/** One inventory.search through `url`; returns the AAP error code, or undefined for a result. */
export async function search(url: string, id: number, headers: Record<string, string> = {}): Promise<{ code?: string; retryAfterMs?: number }> {
  const reply = await request(`${url}/a2a`, {
    body: skillRequest('inventory.search', { filters: {} }, id),
    headers: { 'content-type': 'application/json', ...headers },
  });
  const body = JSON.parse(reply.body.toString()) as { error?: { data?: { code?: string; details?: { retry_after_ms?: number } } } };
  return { code: body.error?.data?.code, retryAfterMs: body.error?.data?.details?.retry_after_ms };
}
