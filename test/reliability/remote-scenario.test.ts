// A scenario that comes over the network (PUT /scenario, the fleet's channel in Redis) is text, an
// object or a built-in name: never a path. A one-line body naming a file is refused without the
// file being opened, and a replica keeps its scenario when Redis holds a JSON string.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRuntime } from '../../src/runtime.js';
import { adminCall, startTestRuntime } from '../control/control-fixture.js';
import { redisMissing } from '../helpers/debian-services.js';
import { startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-remote-');
// A valid scenario stored elsewhere: loading it would put `elsewhere` in force.
const elsewhere = path.join(dir, 'elsewhere.yaml');
writeFileSync(elsewhere, 'scenario: elsewhere\nrules: []\n');
// A file that is not a scenario: its keys would come back quoted as "unknown key" problems.
const secret = path.join(dir, 'secret.yaml');
writeFileSync(secret, 'db_password: SECRET-MARKER-42\n');
// A FIFO nobody writes to: opening it for reading blocks until a writer comes.
const fifo = path.join(dir, 'fifo.yaml');
execFileSync('mkfifo', [fifo]);

const bodies = [
  ['an absolute path to a valid scenario', elsewhere],
  ['an absolute path to another file', secret],
  ['a relative path', path.relative(process.cwd(), elsewhere)],
  ['a FIFO nobody writes', fifo],
  ['a missing file', path.join(dir, 'missing.yaml')],
];

t.test('PUT /scenario with a one-line path answers 4xx at once, reads nothing and keeps the scenario', async (t) => {
  const rt = await startTestRuntime(t);
  for (const [what, body] of bodies) {
    // As YAML text, and as a JSON string (which once went the same way).
    for (const [contentType, sent] of [
      ['application/yaml', body!],
      ['application/json', JSON.stringify(body)],
    ] as const) {
      const started = Date.now();
      const reply = await adminCall(rt, 'PUT', '/scenario', { body: sent, contentType });
      t.ok(reply.status >= 400 && reply.status < 500, `${what} (${contentType}): ${reply.status}`);
      t.ok(Date.now() - started < 5_000, `${what}: answered in ${Date.now() - started} ms`);
      const text = reply.body.toString();
      t.notMatch(text, /SECRET-MARKER|db_password|no such file/, `${what}: nothing of the file, not even whether it exists`);
      t.equal(rt.status().scenario, 'control-test', `${what}: the scenario in force is kept`);
    }
  }
});

t.test('PUT /scenario still takes text, JSON and {"name": built-in}', async (t) => {
  const rt = await startTestRuntime(t);
  t.equal((await adminCall(rt, 'PUT', '/scenario', { body: 'scenario: from-text\nrules: []\n', contentType: 'application/yaml' })).status, 200);
  t.equal(rt.status().scenario, 'from-text');
  t.equal((await adminCall(rt, 'PUT', '/scenario', { body: '{"scenario":"from-json","rules":[]}' })).status, 200);
  t.equal(rt.status().scenario, 'from-json');
  t.equal((await adminCall(rt, 'PUT', '/scenario', { body: '{"name":"passthrough"}' })).status, 200);
  t.equal(rt.status().scenario, 'passthrough');
  const named = await adminCall(rt, 'PUT', '/scenario', { body: JSON.stringify({ name: elsewhere }) });
  t.equal(named.status, 400, 'a path as a name is refused');
});

t.test('a scenario published in Redis as a JSON string is refused; the replica keeps its own', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  const lines: string[] = [];
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    scenario: 'scenario: mine\nrules: []\n',
    state: redis.url,
    replicaId: 'r1',
    env: {},
    log: (l) => lines.push(l),
  });
  const client = new Redis(redis.url);
  t.teardown(async () => {
    client.disconnect();
    await rt.close();
    await redis.close();
  });
  const published = [
    ...[elsewhere, fifo, secret].map(
      (file) => [`a JSON string naming ${path.basename(file)}`, JSON.stringify(file), /is a string, not a scenario object/] as const,
    ),
    ['text that is not JSON', '{not json', /is not JSON/] as const,
    ['an object nested 100,000 deep', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, /nested more than 64 levels/] as const,
  ];
  for (const [i, [what, json, why]] of published.entries()) {
    const version = 100 + i;
    await client.hset('aap-chaos:scenario', 'json', json, 'version', String(version));
    await client.publish('aap-chaos:scenario', String(version));
    await waitFor(() => lines.some((l) => l.includes(`version ${version} refused`)), 5_000);
    t.match(
      lines.find((l) => l.includes(`version ${version} refused`)),
      why,
      `${what}: refused, saying why`,
    );
    t.equal(rt.status().scenario, 'mine', `${what}: the replica keeps its scenario`);
  }
  const refusal = lines.find((l) => l.includes('version 100 refused'))!;
  t.match(
    refusal,
    /^published scenario version 100 refused, the running scenario stays: published scenario version 100  is a string, not a scenario object/,
    refusal,
  );
  t.notOk(refusal.includes('\n'), 'one line');
  t.notMatch(lines.join('\n'), /SECRET-MARKER|db_password/);
  // Still following: a real scenario published next is adopted.
  await client.hset('aap-chaos:scenario', 'json', JSON.stringify({ scenario: 'next', rules: [] }), 'version', '200');
  await client.publish('aap-chaos:scenario', '200');
  await waitFor(() => rt.status().scenario === 'next', 5_000);
});

t.test('a scenario file must be a regular file: a FIFO, a directory or a device is refused at once', async (t) => {
  const { runCli } = await import('./cli-run.js');
  for (const [file, kind] of [
    [fifo, /is a FIFO \(named pipe\), not a regular file/],
    [dir, /is a directory/],
    ['/dev/zero', /is a device, not a regular file/],
  ] as const) {
    const r = await runCli(['validate', file], 30_000);
    t.equal(r.code, 1, `${file}: exit 1`);
    t.match(r.out, kind, r.out.split('\n')[0]);
    t.ok(r.ms < 20_000, `${file}: answered in ${r.ms} ms`);
  }
});
