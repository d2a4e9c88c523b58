// A time to live is bounded (30 days at most) wherever it is given — `?ttl=`, `--max-ttl`, `ctl
// --ttl`, the library's `use()` — and a longer one is refused before anything changes. A TTL read
// back from Redis that is out of range (or not a TTL at all) is refused by every replica with a
// log line: /status keeps answering and the scenario stays, on a replica started later too.
import t from 'tap';
import { Redis } from 'ioredis';
import { startChaos } from '../../src/index.js';
import { ttlMs } from '../../src/option-values.js';
import { redisMissing } from '../helpers/debian-services.js';
import { calm } from '../helpers/fleet.js';
import { startRedis } from '../helpers/redis-server.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { adminCall, startTestRuntime } from '../control/control-fixture.js';
import { cli } from '../helpers/cli-run.js';

const other = JSON.stringify({ scenario: 'other', rules: [{ id: 'all-fail', error: 'INTERNAL_ERROR' }] });

t.test('the one TTL parser refuses a TTL past 30 days, and takes 30 days', async (t) => {
  const thirtyDays = 30 * 24 * 3_600_000;
  t.equal(ttlMs('720h'), thirtyDays);
  t.throws(() => ttlMs('721h'), /longer than 720h \(30 days\)/);
  t.throws(() => ttlMs('99999999999h'), /longer than 720h/);
  t.throws(() => ttlMs(thirtyDays + 1), /longer than 720h/);
});

t.test('PUT /scenario?ttl= past the bound is a 400 naming ttl; nothing applied, /status answers', async (t) => {
  const runtime = await startTestRuntime(t);
  const put = await adminCall(runtime, 'PUT', '/scenario?ttl=99999999999h', { body: other });
  t.equal(put.status, 400);
  t.match(put.json.error.message, /^ttl: "99999999999h" is longer than 720h \(30 days\)/);
  const status = await adminCall(runtime, 'GET', '/status');
  t.equal(status.status, 200, '/status still answers');
  t.equal(status.json.scenario, 'control-test', 'the scenario in force is kept');
  t.same(status.json.ttl, []);
  const rule = await adminCall(runtime, 'PUT', '/rules/throttle-search/enabled?ttl=99999999999h', { body: 'false' });
  t.equal(rule.status, 400);
  t.match(rule.json.error.message, /^ttl: /);
  t.equal(runtime.status().rules.find((r) => r.id === 'throttle-search')!.enabled, true, 'the rule is not switched');
  const audit = await adminCall(runtime, 'GET', '/audit');
  t.equal(audit.body.toString(), '', 'nothing was recorded: nothing happened');
});

t.test('the library: use() with a TTL past the bound rejects and changes nothing; maxTtlMs past it is an OptionError', async (t) => {
  const chaos = await startChaos({ scenario: 'flaky-internal' });
  t.teardown(() => chaos.close());
  await t.rejects(chaos.use(other, { ttlMs: 1e15 }), /ttl .*longer than 720h/);
  t.equal(chaos.status().scenario, 'flaky-internal');
  t.same(chaos.status().ttl, []);
  await t.rejects(startChaos({ maxTtlMs: 1e15 }), {
    name: 'OptionError',
    message: /^option maxTtlMs \(flag --max-ttl\): 1000000000000000 is longer than 720h/,
  });
});

t.test('--max-ttl past the bound: exit 2, one line naming the flag', async (t) => {
  const r = await cli(['--max-ttl', '99999999999h', '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on' });
  t.equal(r.code, 2);
  t.match(r.err.trim(), /^aap-chaos: --max-ttl: "99999999999h" is longer than 720h \(30 days\)[^\n]*$/);
  t.equal(r.out, '', 'nothing started');
});

t.test('ctl use --ttl past the bound: the instance refuses it, naming ttl', async (t) => {
  const chaos = await startChaos({ scenario: 'flaky-internal' });
  t.teardown(() => chaos.close());
  const r = await cli(['ctl', 'use', 'calm', '--ttl', '99999999999h', '--admin', chaos.adminUrl]);
  t.equal(r.code, 1);
  t.match(r.err, /ttl: "99999999999h" is longer than 720h/);
  t.equal(chaos.status().scenario, 'flaky-internal');
});

t.test('a TTL in Redis out of range wedges no replica, nor one started later', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  const client = new Redis(redis.url);
  const replicas: Runtime[] = [];
  t.teardown(async () => {
    for (const r of replicas) await r.close();
    client.disconnect();
    await redis.close();
  });
  const logs: string[] = [];
  let logged: (() => void) | undefined;
  const start = async (replicaId: string) => {
    const r = await startRuntime({ port: 0, adminPort: 0, scenario: calm, state: redis.url, replicaId, env: {}, log: (line) => (logs.push(line), logged?.()) });
    replicas.push(r);
    return r;
  };
  const nextRefusal = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no refusal logged; log: ${logs.join(' | ')}`)), 10_000);
      logged = () => {
        if (logs.filter((l) => l.includes('time to live in Redis refused')).length >= count) {
          clearTimeout(timer);
          resolve();
        }
      };
      logged();
    });
  const r1 = await start('r1');
  const version = (r1.status() as unknown as { state: { scenario_version: number } }).state.scenario_version;
  const bad = [
    JSON.stringify({ version, expires_at: 1e20, previous: 'null' }),
    JSON.stringify({ version, expires_at: Date.now() + 60_000, previous: '{not json' }),
    'not even json',
  ];
  for (const [i, text] of bad.entries()) {
    await client.set('aap-chaos:ttl', text);
    await client.publish('aap-chaos:control', 'ttl');
    await nextRefusal(i + 1);
    const status = await adminCall(r1, 'GET', '/status');
    t.equal(status.status, 200, `/status answers after ${text.slice(0, 60)}`);
    t.same(status.json.ttl, [], 'no TTL armed from it');
    t.equal(status.json.scenario, 'calm');
  }
  t.match(
    logs.find((l) => l.includes('refused')),
    /expires_at/,
    'the log line says what is wrong',
  );
  await client.set('aap-chaos:ttl', bad[0]!);
  const late = await start('late');
  const status = await adminCall(late, 'GET', '/status');
  t.equal(status.status, 200, 'a replica started later answers /status');
  t.same(status.json.ttl, []);
  t.equal(status.json.scenario, 'calm');
});
