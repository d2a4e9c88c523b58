// --workers 2 --audit FILE: each worker keeps its own hash chain in its own file (FILE.w1…, like the
// journal), so the log of a multi-worker proxy verifies, one chain per worker, each named; before,
// both workers appended their own chains to one file and broke it by themselves. The fleet's
// shared chain adds no listener per entry to its Redis connection (a soak found 11 after 11 entries).
import t from 'tap';
import { Redis } from 'ioredis';
import { FleetControl } from '../../src/state/fleet-control.js';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisMissing } from '../helpers/debian-services.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { cli } from '../helpers/cli-run.js';
import { request } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const calm = `scenario: calm
rules:
  - id: slow-vehicle
    match: { skill: inventory.vehicle }
    delay: { ms: 1 }
`;

t.test('--workers 2 --audit: one chain per worker, each in its own file, all verifying', { skip: redisMissing() }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-workers-audit-');
  const redis = await startRedis(t);
  t.teardown(() => redis.close());
  writeFileSync(join(dir, 'calm.yaml'), calm);
  const [port, adminPort] = [await freePort(), await freePort()];
  const args = ['--workers', '2', '--state', redis.url, '--port', String(port), '--admin-port', String(adminPort)];
  const primary = spawn(
    process.execPath,
    ['bin/aap-chaos.js', ...args, '--scenario', join(dir, 'calm.yaml'), '--audit', join(dir, 'audit.jsonl'), '--replica-id', 'box'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (primary.exitCode === null && primary.signalCode === null) process.kill(primary.pid!, 'SIGKILL');
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('2 workers')) resolve();
    };
    primary.stdout.on('data', onData);
    primary.stderr.on('data', onData);
    primary.once('exit', () => reject(new Error(`primary exited: ${output}`)));
  });
  // Each change on its own connection: the primary hands connections to the workers in turn.
  for (let i = 0; i < 6; i++) {
    const put = await request(`http://127.0.0.1:${adminPort}/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml', connection: 'close' },
      body: calm,
    });
    t.equal(put.status, 200);
  }
  process.kill(primary.pid!, 'SIGTERM');
  t.equal(await exited, 0);

  const actions = (w: string) =>
    readFileSync(join(dir, `audit.${w}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; replica: string });
  const [w1, w2] = [actions('w1'), actions('w2')];
  t.same([...new Set([...w1.map((e) => e.replica)])], ['box-w1'], "worker 1's file holds its own entries only");
  t.same([...new Set(w2.map((e) => e.replica))], ['box-w2']);
  t.equal(w1.filter((e) => e.action === 'scenario-load').length + w2.filter((e) => e.action === 'scenario-load').length, 6, 'every change recorded once');
  const verify = await cli(['audit', 'verify', dir]);
  t.equal(verify.code, 0, verify.out + verify.err);
  t.match(verify.out, /audit\.w1\.jsonl \(1 file, \d+ entries, seq 1-\d+\): chain intact/);
  t.match(verify.out, /audit\.w2\.jsonl \(1 file, \d+ entries, seq 1-\d+\): chain intact/);
});

t.test("appending to the fleet's audit stream adds no listener per entry", { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  const client = new Redis(redis.url);
  const control = new FleetControl(client);
  t.teardown(async () => {
    control.close();
    client.disconnect();
    await redis.close();
  });
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  for (let n = 1; n <= 15; n++) {
    const entry = await control.append(
      { action: 'reset', target: 'fleet', scenario_before: null, scenario_after: null, remote: null, token: null },
      new Date().toISOString(),
      'r1',
    );
    t.equal(entry.seq, n);
  }
  await new Promise((resolve) => setImmediate(resolve));
  t.same(warnings, [], 'no MaxListenersExceededWarning');
  t.equal((control as unknown as { auditConnection: Redis }).auditConnection.listenerCount('error'), 1, 'one error listener, however many entries');
});
