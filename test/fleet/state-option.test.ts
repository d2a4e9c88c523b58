// --state and AAP_CHAOS_STATE: an unreachable Redis at start is one clear line naming the URL
// (exit 2, nothing listening); a value that is no store is refused naming the flag. And each
// replica's seeded stream derives from the seed and the replica id.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { freePort } from '../helpers/redis-server.js';
import { createEngine } from '../../src/engine/engine.js';
import { classifyRequest } from '../../src/protocol/classify.js';
import { skillRequest } from '../helpers/servers.js';
import { startRuntime } from '../../src/runtime.js';

const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['bin/aap-chaos.js', '--port', '0', '--admin-port', '0', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, AAP_CHAOS_STATE: '', ...env },
  });

t.test('Redis unreachable at start: one line naming the URL, exit 2', async (t) => {
  const port = await freePort(); // nothing listens there
  const flag = cli(['--state', `redis://127.0.0.1:${port}/0`]);
  t.equal(flag.status, 2);
  t.match(flag.stderr, new RegExp(`^aap-chaos: --state redis://127\\.0\\.0\\.1:${port}/0: cannot reach Redis \\(connect ECONNREFUSED`));
  t.notMatch(flag.stderr, /\n\s+at /, 'no stack trace');

  const env = cli([], { AAP_CHAOS_STATE: `redis://127.0.0.1:${port}/2` });
  t.equal(env.status, 2);
  t.match(env.stderr, new RegExp(`AAP_CHAOS_STATE=redis://127\\.0\\.0\\.1:${port}/2: cannot reach Redis`), 'the variable is named when it gave the URL');

  await t.rejects(startRuntime({ port: 0, adminPort: 0, state: `redis://127.0.0.1:${port}` }), /cannot reach Redis/, 'the library refuses alike');
});

t.test('a --state that is no store is refused naming the flag', async (t) => {
  const run = cli(['--state', 'mysql://localhost']);
  t.equal(run.status, 2);
  t.match(run.stderr, /--state: "mysql:\/\/localhost" is neither memory nor a redis:\/\/host:port\/db URL/);
  t.equal(cli(['--replica-id', 'has space']).status, 2, 'a replica id with a space is refused');
});

t.test('each replica draws its own reproducible stream from the seed and its id', async (t) => {
  const scenario = { scenario: 'coin', seed: 7, rules: [{ id: 'coin', when: { probability: 0.5 }, error: 'INTERNAL_ERROR' as const }] };
  const request = classifyRequest({
    method: 'POST',
    url: '/a2a',
    headers: { 'content-type': 'application/json' },
    clientIp: '1',
    body: Buffer.from(skillRequest('inventory.search')),
  });
  const draws = (replicaId?: string) => {
    const engine = createEngine(scenario, { replicaId });
    return Array.from({ length: 32 }, () => engine.decide({ request, profile: '1.3', extensionUri: 'u' }).fired.length).join('');
  };
  t.equal(draws('r1'), draws('r1'), 'the same replica id repeats its faults');
  t.not(draws('r1'), draws('r2'), 'another replica id draws another stream');
  t.equal(draws(), draws(), 'without a replica id the seed alone decides, as before');
});
