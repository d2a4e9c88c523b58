// The files the proxy appends to (--journal, --audit and its head, --record) are created 0600, and
// a symbolic link or a FIFO at their path is refused at start with one line, exit 2, the link's
// target untouched. SIGHUP after logrotate's `create` rotation (move the file, create a new one,
// send HUP) reopens the journal and the audit log: no journal line is lost across the two files,
// and the audit chain verifies across them.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, cli } from '../helpers/cli-run.js';
import { request, skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const STATELESS = `scenario: logs
rules:
  - id: slow-vehicle
    match: { skill: inventory.vehicle }
    delay: { ms: 1 }
`;

for (const [flag, what] of [
  ['--journal', 'journal'],
  ['--audit', 'audit'],
  ['--record', 'record'],
] as const) {
  t.test(`${flag}: a symbolic link at the path is refused at start, not followed`, async (t) => {
    const dir = tempDir(t, 'aap-chaos-log-files-');
    const target = path.join(dir, `elsewhere-${what}`);
    const link = path.join(dir, `${what}.jsonl`);
    symlinkSync(target, link);
    const run = await cli([flag, link, '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on ' });
    t.equal(run.code, 2, run.out + run.err);
    t.equal(run.err, `aap-chaos: ${flag}: ${link} is a symbolic link; give the path of the file itself (a link at a log path is never followed)\n`);
    t.notOk(existsSync(target), 'nothing was written where the link points');
  });
}

t.test('a FIFO at --journal is refused at once, not waited on', { skip: process.platform === 'win32' }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-log-files-');
  const fifo = path.join(dir, 'journal.jsonl');
  t.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const run = await cli(['--journal', fifo, '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on ' });
  t.equal(run.code, 2);
  t.equal(run.err, `aap-chaos: --journal: ${fifo} is not a regular file (a FIFO or socket)\n`);
});

t.test('rotation flags without the file they rotate, or below 1 KiB, are refused with one line', async (t) => {
  const noFile = await cli(['--journal-max-bytes', '1M', '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on ' });
  t.equal(noFile.code, 2);
  t.equal(noFile.err, 'aap-chaos: --journal-max-bytes: there is no --journal FILE to rotate\n');
  const tiny = await cli(['--audit', 'a.jsonl', '--audit-max-bytes', '10', '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on ' });
  t.equal(tiny.code, 2);
  t.match(tiny.err, /^aap-chaos: --audit-max-bytes: "10" is not a size of at least 1024 bytes/);
  const compress = await cli(['--journal', 'j.jsonl', '--journal-compress', '--port', '0', '--admin-port', '0'], { killWhenOut: 'proxy on ' });
  t.equal(compress.code, 2);
  t.match(compress.err, /--journal-compress: .*give --journal-max-bytes too/);
});

t.test('the start-up lines say how each file rotates', async (t) => {
  const dir = tempDir(t, 'aap-chaos-log-files-');
  const [journal, audit] = [path.join(dir, 'j.jsonl'), path.join(dir, 'a.jsonl')];
  const args = ['--journal', journal, '--journal-max-bytes', '64M', '--journal-compress', '--audit', audit, '--audit-max-bytes', '512K', '--audit-keep', '9'];
  const run = await cli([...args, '--port', '0', '--admin-port', '0'], { killWhenOut: `audit log appended to ${audit}, rotated at 512 KiB, 9 kept\n` });
  t.match(run.out, `journal appended to ${journal}, rotated at 64 MiB, 5 kept, gzip\n`);
  t.match(run.out, `audit log appended to ${audit}, rotated at 512 KiB, 9 kept\n`);
});

/** The proxy as a process, with the lines it prints. */
async function startProxy(t: Test, args: string[]) {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--admin-port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  const seen: Array<{ text: string; resolve: () => void }> = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const s of seen) if (out.includes(s.text)) s.resolve();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.includes(text)) return resolve();
      seen.push({ text, resolve });
      child.once('exit', () => reject(new Error(`exited before printing "${text}": ${out}`)));
    });
  await printed('admin API on ');
  const url = /proxy on (http:\/\/[\d.:]+)/.exec(out)![1]!;
  const adminUrl = /admin API on (http:\/\/[\d.:]+)/.exec(out)![1]!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, adminUrl, printed, exited, output: () => out };
}

const search = (url: string, id: number) =>
  request(`${url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: skillRequest('inventory.search', {}, id) });

t.test('files are created 0600; SIGHUP after a logrotate `create` rotation loses no journal line and keeps the audit chain', async (t) => {
  const dir = tempDir(t, 'aap-chaos-log-files-');
  const [journal, audit, recording, scenario] = ['journal.jsonl', 'audit.jsonl', 'rec.jsonl', 's.yaml'].map((f) => path.join(dir, f)) as [
    string,
    string,
    string,
    string,
  ];
  writeFileSync(scenario, STATELESS);
  const proxy = await startProxy(t, ['--journal', journal, '--audit', audit, '--record', recording, '--scenario', scenario]);
  for (let i = 0; i < 10; i++) t.equal((await search(proxy.url, i)).status, 200);
  const swap = () => request(`${proxy.adminUrl}/scenario`, { method: 'PUT', headers: { 'content-type': 'application/yaml' }, body: STATELESS });
  t.equal((await swap()).status, 200);
  for (const file of [journal, audit, `${audit}.head`, recording]) t.equal(statSync(file).mode & 0o777, 0o600, `${path.basename(file)} is 0600`);

  // What logrotate does with `create 0600`: move each file, create an empty one, then HUP.
  for (const file of [journal, audit]) {
    renameSync(file, `${file}.1`);
    writeFileSync(file, '', { mode: 0o600 });
  }
  // Lines still being written go to the moved file until the HUP: both files are counted.
  for (let i = 10; i < 15; i++) t.equal((await search(proxy.url, i)).status, 200);
  proxy.child.kill('SIGHUP');
  await proxy.printed(`SIGHUP: reopened ${journal} and ${audit}`);
  for (let i = 15; i < 25; i++) t.equal((await search(proxy.url, i)).status, 200);
  t.equal((await swap()).status, 200);
  proxy.child.kill('SIGTERM');
  t.equal(await proxy.exited, 0);

  const count = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;
  t.ok(count(journal) >= 10, `the new journal file has the lines after the HUP (${count(journal)})`);
  t.equal(count(journal) + count(`${journal}.1`), 25, 'every request has its line, in one of the two files');
  t.equal(JSON.parse(readFileSync(audit, 'utf8').split('\n')[0]!).action, 'file-start', 'the new audit file begins with its file-start entry');
  const verify = await cli(['audit', 'verify', `${audit}.1`, audit]);
  t.equal(verify.code, 0, verify.out + verify.err);
  t.match(verify.out, /\(2 files, 4 entries, seq 1-4\): chain intact\n {2}tail confirmed/);
});
