// An exam runs on its own: with AAP_CHAOS_STATE in the environment (a live fleet on the same
// machine), each run still keeps its rule state in memory and runs the scenario it names, and the
// buyer's environment carries neither that URL (with its password) nor any other aap-chaos secret.
import t from 'tap';
import { Redis } from 'ioredis';
import { startRuntime } from '../../src/runtime.js';
import { redisMissing } from '../helpers/debian-services.js';
import { startRedis } from '../helpers/redis-server.js';
import { exam, type ExamJson } from '../helpers/exam.js';

// The buyer prints which aap-chaos variables it got, then the error code of one search, if any.
const BUYER = `
const names = Object.keys(process.env).filter((k) => k.startsWith('AAP_CHAOS_')).sort();
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.search.request', filters: {} } }] } } });
const reply = await (await fetch(process.env.AAP_DEALER_URL + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
console.log(JSON.stringify({ names, code: reply.error?.data?.code ?? null }));
`;

t.test('exam under AAP_CHAOS_STATE keeps to its own memory state; the buyer gets no aap-chaos secret', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  // Stopped even when the fleet below fails to start: a redis-server left running kept this file open until tap's timeout.
  t.teardown(() => redis.close());
  // A live fleet, running a scenario that fails every search.
  const fleet = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    state: redis.url,
    replicaId: 'live',
    scenario: 'scenario: live-failing\nrules:\n  - { id: fail, match: { skill: inventory.search }, error: INTERNAL_ERROR }\n',
  });
  const client = new Redis(redis.url);
  t.teardown(async () => {
    client.disconnect();
    await fleet.close();
  });
  const versionBefore = await client.hget('aap-chaos:scenario', 'version');
  const stateUrl = redis.url.replace('redis://', 'redis://:fleet-password-123@');
  const outcome = await exam(['--scenarios', 'passthrough', '--json', '--', process.execPath, '--input-type=module', '-e', BUYER], {
    AAP_CHAOS_STATE: stateUrl,
    AAP_CHAOS_ADMIN_TOKEN: 'admin-token-456',
  });
  const json = JSON.parse(outcome.out) as ExamJson;
  const run = json.scenarios[0]!.runs[0]!;
  const seen = JSON.parse(run.buyer.stdout.trim().split('\n').pop()!) as { names: string[]; code: string | null };
  t.equal(seen.code, null, "the run applied its own scenario (passthrough), not the fleet's");
  t.notOk(seen.names.includes('AAP_CHAOS_STATE'), `the buyer got no AAP_CHAOS_STATE (${seen.names.join(', ')})`);
  t.notOk(seen.names.includes('AAP_CHAOS_ADMIN_TOKEN'), 'nor the admin token');
  t.notMatch(outcome.out + outcome.err, /fleet-password-123|admin-token-456/, 'no secret in the exam output');
  t.equal(await client.hget('aap-chaos:scenario', 'version'), versionBefore, 'the exam published nothing to the fleet');
  t.equal(fleet.status().scenario, 'live-failing', 'the fleet keeps its scenario');
});
