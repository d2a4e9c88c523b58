// The two conformance entry points as a user meets them: the built CLI in a child process.
import t from 'tap';
import { spawn } from 'node:child_process';
import { BIN, cli } from '../helpers/cli-run.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startMockDealer } from '../../src/mock/index.js';
import { request, skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startBrokenDealer } from './broken-dealer.js';

const dir = tempDir(t, 'aap-chaos-conformance-cli-');

t.test('aap-chaos check: 0 for the mock, 1 for the broken dealer, JUnit and JSON on request', async (t) => {
  const mock = await startMockDealer({ profile: '2.0', port: 0 });
  t.teardown(() => mock.close());
  const good = await cli(['check', '--target', mock.url]);
  t.equal(good.code, 0, good.code === 0 ? 'exit 0' : good.out + good.err);
  t.match(good.out, /^PASS: \d+ passed, 0 failed \(0 MUST\)/m);

  const broken = await startBrokenDealer();
  t.teardown(() => broken.close());
  const junit = path.join(dir, 'check.xml');
  const bad = await cli(['check', '--target', broken.url, '--probe-rate-limit', '--junit', junit, '--json']);
  t.equal(bad.code, 1);
  t.equal(JSON.parse(bad.out).summary.must_fail, 8);
  t.match(readFileSync(junit, 'utf8'), /<failure type="MUST"/);
});

t.test('aap-chaos check without --target is a usage error', async (t) => {
  const r = await cli(['check']);
  t.equal(r.code, 2);
  t.match(r.err, /Missing required argument: target/);
});

t.test('--check-dealer reaches the running proxy: its journal lines carry conformance', async (t) => {
  const journal = path.join(dir, 'checked.jsonl');
  const child = spawn(process.execPath, [BIN, '--check-dealer', '--port', '0', '--admin-port', '0', '--journal', journal], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  const url = await new Promise<string>((resolve) =>
    child.stdout.on('data', (c) => {
      out += c;
      const m = /proxy on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    }),
  );
  await request(`${url}/a2a`, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exited, 0);
  const lines = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(lines.find((l) => l.method === 'SendMessage')?.conformance, [], 'checked, and the mock kept every rule');
  const report = await cli(['report', journal]);
  t.match(report.out, /Dealer conformance \(--check-dealer\): 1 dealer replies checked, 0 broke a rule/);
});
