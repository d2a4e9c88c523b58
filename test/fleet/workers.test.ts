// --workers 2 with Redis: two worker processes behind one port share the rate limit exactly and
// both serve requests; without Redis more than one worker is refused with one clear line, since
// each worker would hold its own lever, scenario and switches and an admin call reaches one.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisMissing } from '../helpers/debian-services.js';
import { dealerReply } from '../helpers/chaos-harness.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { search } from '../helpers/fleet.js';
import { request, startUpstream } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const limited = `scenario: workers-limit
rules:
  - id: four-per-minute
    match: { skill: inventory.search }
    rate_limit: { limit: 4, window_ms: 60000 }
`;

t.test('--workers 2 with Redis: one port, one shared rate limit, both workers serving', { skip: redisMissing() }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-workers-');
  const redis = await startRedis(t);
  const dealer = await startUpstream((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(dealerReply(body));
  });
  t.teardown(async () => {
    await dealer.close();
    await redis.close();
  });
  writeFileSync(join(dir, 'limit.yaml'), limited);
  const [port, adminPort] = [await freePort(), await freePort()];
  const args = [
    'bin/aap-chaos.js',
    '--workers',
    '2',
    '--state',
    redis.url,
    '--target',
    dealer.url,
    '--port',
    String(port),
    '--admin-port',
    String(adminPort),
    '--scenario',
    join(dir, 'limit.yaml'),
    '--journal',
    join(dir, 'j.jsonl'),
    '--replica-id',
    'box',
  ];
  const primary = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (primary.exitCode === null && primary.signalCode === null) process.kill(primary.pid!, 'SIGKILL');
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`workers did not start: ${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('2 workers')) {
        clearTimeout(timer);
        resolve();
      }
    };
    primary.stdout.on('data', onData);
    primary.stderr.on('data', onData);
    primary.once('exit', () => reject(new Error(`primary exited: ${output}`)));
  });
  t.match(output, /2 workers \(box-w1…w2\) share the proxy on http:\/\/127\.0\.0\.1:\d+/);

  // Each request on its own connection: the primary hands connections to the workers in turn.
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => search(`http://127.0.0.1:${port}`, i, { connection: 'close' })));
  t.equal(results.filter((r) => r.code === undefined).length, 4, 'four allowed in total, not four per worker');
  t.equal(results.filter((r) => r.code === 'RATE_LIMITED').length, 8);

  // One lever pull on the shared admin port reaches one worker; every worker stops injecting.
  const pulled = await request(`http://127.0.0.1:${adminPort}/safety-lever`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'one stop' }),
  });
  t.equal(pulled.status, 200);
  // The other worker follows through Redis within a second (docs/fleet.md); ten are allowed here.
  for (const deadline = Date.now() + 10_000; ; ) {
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => search(`http://127.0.0.1:${port}`, 100 + i, { connection: 'close' })));
    if (after.every((r) => r.code === undefined)) break;
    if (Date.now() > deadline) throw new Error(`a worker still injects 10 s after the lever: ${JSON.stringify(after)}`);
  }
  const stopped = await Promise.all(Array.from({ length: 12 }, (_, i) => search(`http://127.0.0.1:${port}`, 200 + i, { connection: 'close' })));
  t.same(
    stopped.map((r) => r.code),
    Array(12).fill(undefined),
    'after one pull, no worker injects: 12 of 12 searches answered by the dealer',
  );

  process.kill(primary.pid!, 'SIGTERM');
  t.equal(await exited, 0, 'SIGTERM stops the workers and the primary exits 0');
  const replicas = new Set<string>();
  for (const w of ['w1', 'w2']) {
    for (const line of readFileSync(join(dir, `j.${w}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean))
      replicas.add(JSON.parse(line).replica);
  }
  t.same([...replicas].sort(), ['box-w1', 'box-w2'], 'both workers served requests, each in its own journal');
});

t.test('--workers 2 without Redis is refused with one line, whatever the scenario', async (t) => {
  const dir = tempDir(t, 'aap-chaos-workers-');
  writeFileSync(join(dir, 'limit.yaml'), limited);
  // A stateless scenario too: the lever, a scenario swap, dry run and rule switches would each reach one worker.
  for (const scenario of [['--scenario', join(dir, 'limit.yaml')], ['--scenario', 'flaky-internal'], [], ['--state', 'memory']]) {
    const run = spawnSync(process.execPath, ['bin/aap-chaos.js', '--workers', '2', ...scenario, '--port', '0', '--admin-port', '0'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, AAP_CHAOS_STATE: '' },
    });
    t.equal(run.status, 2, `${scenario.join(' ') || 'no scenario'}: a usage error`);
    t.match(run.stderr, /^aap-chaos: --workers 2 needs --state redis:\/\/host:port\/db \(or AAP_CHAOS_STATE\)[^\n]*redis-server[^\n]*\n$/);
    t.equal(run.stdout, '', 'nothing started');
  }
  const one = spawnSync(process.execPath, ['bin/aap-chaos.js', '--workers', '1', '--port', '0', '--admin-port', '0', '--max-ttl', 'soon'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, AAP_CHAOS_STATE: '' },
  });
  t.match(one.stderr, /--max-ttl/, '--workers 1 needs no Redis: it goes on to the other flags');
});
