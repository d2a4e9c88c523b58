// A Redis password in the --state URL (its user part or `?password=`) reaches Redis and nothing
// else: not /status, not the start-up failure, not the refusal of a malformed value.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { redisMissing } from '../helpers/debian-services.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { request } from '../helpers/servers.js';
import { startRuntime } from '../../src/runtime.js';

const SECRET = 's3cr3t-Pa55';
const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['bin/aap-chaos.js', '--port', '0', '--admin-port', '0', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, AAP_CHAOS_STATE: '', ...env },
  });

t.test('/status shows the store URL without its password, given either way', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t, ['--requirepass', SECRET]);
  t.teardown(() => redis.close());
  for (const url of [`redis://127.0.0.1:${redis.port}/0?password=${SECRET}`, `redis://:${SECRET}@127.0.0.1:${redis.port}/0`]) {
    const rt = await startRuntime({ port: 0, adminPort: 0, state: url, log: () => {} });
    const status = (await request(`${rt.adminUrl}/status`)).body.toString();
    await rt.close();
    t.match(JSON.parse(status).state, { store: 'redis', status: 'ready' }, 'the password reached Redis');
    t.notMatch(status, SECRET, `no password in /status (${url.includes('?') ? 'query' : 'user part'})`);
    t.match(status, /\*\*\*/, 'the URL says a password was given');
  }
});

t.test('the start-up failure and a refused value never quote the password', async (t) => {
  const port = await freePort(); // nothing listens there
  const query = cli(['--state', `redis://127.0.0.1:${port}/0?password=${SECRET}`]);
  t.equal(query.status, 2);
  t.match(query.stderr, /cannot reach Redis/);
  t.notMatch(query.stderr + query.stdout, SECRET, 'no password from the query');

  const env = cli([], { AAP_CHAOS_STATE: `redis://user:${SECRET}@127.0.0.1:${port}/0` });
  t.equal(env.status, 2);
  t.match(env.stderr, /AAP_CHAOS_STATE=redis:\/\/user:\*\*\*@127\.0\.0\.1/);
  t.notMatch(env.stderr, SECRET, 'no password from the user part');

  const refused = cli(['--state', `http://:${SECRET}@127.0.0.1/?password=${SECRET}`]);
  t.equal(refused.status, 2);
  t.match(refused.stderr, /--state: .* is neither memory nor a redis/);
  t.notMatch(refused.stderr, SECRET, 'a refused value is quoted without its password');

  await t.rejects(startRuntime({ port: 0, adminPort: 0, state: `redis://127.0.0.1:${port}/x?password=${SECRET}` }), {
    message: /the database "x" is not a number/,
  });
  await startRuntime({ port: 0, adminPort: 0, state: `redis://127.0.0.1:${port}/x?password=${SECRET}` }).catch((e: Error) =>
    t.notMatch(e.message, SECRET, 'nor the library'),
  );
});
