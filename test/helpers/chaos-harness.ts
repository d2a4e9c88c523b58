// A proxy with a scenario in front of a small JSON-RPC dealer, for effect and rule tests.
import type { Test } from 'tap';
import { startProxy, type StartedProxy } from '../../src/proxy/server.js';
import { createEngine, type EngineOptions } from '../../src/engine/engine.js';
import { loadScenarioText } from '../../src/scenario/load.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import type { ProxyOptions } from '../../src/proxy/server.js';
import { request, skillRequest, startUpstream, type RawReply, type Upstream } from './servers.js';

export interface Harness {
  proxy: StartedProxy;
  upstream: Upstream;
  journal: JournalEntry[];
  /** POST a skill request to /a2a through the proxy. */
  call(skill: string, data?: Record<string, unknown>, opts?: { id?: string | number | null; headers?: Record<string, string> }): Promise<RawReply>;
  json(reply: RawReply): any;
}

/** The dealer answers every SendMessage with a success echoing the skill. */
export function dealerReply(body: Buffer): string {
  let id: unknown = null;
  let skill = 'unknown';
  try {
    const req = JSON.parse(body.toString());
    id = req.id;
    skill = String(req.params?.message?.parts?.[0]?.data?.type ?? 'x.request').replace(/\.request$/, '');
  } catch {
    /* not JSON */
  }
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      message: {
        messageId: 'd-1',
        contextId: 'c-1',
        role: 'ROLE_AGENT',
        parts: [{ data: { type: `${skill}.response`, data: { total: 1, vehicles: [{ vin: 'V1', status: 'available', price: 100 }] } } }],
      },
    },
  });
}

export async function harness(
  t: Test,
  scenarioYaml: string,
  opts: { engine?: EngineOptions; proxy?: Partial<ProxyOptions>; dealer?: Parameters<typeof startUpstream>[0] } = {},
): Promise<Harness> {
  const loaded = loadScenarioText(scenarioYaml, 'test.yaml');
  if (!loaded.ok) throw new Error(`test scenario invalid: ${JSON.stringify(loaded.problems)}`);
  const upstream = await startUpstream(
    opts.dealer ??
      ((_req, res, body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(dealerReply(body));
      }),
  );
  const proxy = await startProxy({ target: upstream.url, port: 0, profile: '1.3', ...opts.proxy });
  proxy.proxy.decider = createEngine(loaded.scenario, { seed: 1, ...opts.engine });
  const journal: JournalEntry[] = [];
  proxy.proxy.observers.push({ onRequestDone: (e) => journal.push(e) });
  t.teardown(async () => {
    await proxy.close();
    await upstream.close();
  });
  return {
    proxy,
    upstream,
    journal,
    call: (skill, data = {}, o = {}) =>
      request(proxy.url + '/a2a', {
        body: skillRequest(skill, data, o.id === undefined ? 1 : o.id),
        headers: { 'content-type': 'application/json', ...o.headers },
      }),
    json: (reply) => JSON.parse(reply.body.toString()),
  };
}
