// The command line as a user meets it: the built CLI in a child process, over real sockets.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));
const dir = tempDir(t, 'aap-chaos-cli-');

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** Resolves with the first match of `re` in stdout+stderr, waiting for more output as needed. */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout!.on('data', (c) => ((out += c), poke()));
  child.stderr!.on('data', (c) => ((err += c), poke()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => (poke(), resolve(code))));
  const waitFor = async (re: RegExp) => {
    for (;;) {
      const m = (out + err).match(re);
      if (m) return m;
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before ${re}: ${out}${err}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, out: () => out, err: () => err, waitFor, exited };
}

const noStack = (t: Test, text: string) => t.notMatch(text, /\n\s+at .+:\d+:\d+/, 'no stack trace');

t.test('validate: exit 0 for good files, 1 with file:line:col for bad ones', async (t) => {
  const good = path.join(dir, 'good.yaml');
  const bad = path.join(dir, 'bad.yaml');
  writeFileSync(good, 'rules:\n  - { id: a, error: INTERNAL_ERROR }\n');
  writeFileSync(bad, 'rules:\n  - id: a\n    when: { probability: 2 }\n    error: NOT_A_CODE\n');
  const ok = run(['validate', good, 'rate-limit-storm']);
  t.equal(await ok.exited, 0);
  const no = run(['validate', good, bad]);
  t.equal(await no.exited, 1);
  t.match(no.out(), `${bad}:3:`);
  t.match(no.out(), '/rules/0/when/probability');
  noStack(t, no.out() + no.err());
});

t.test('the proxy refuses to start on a bad scenario or a bad flag (exit 2, no stack trace)', async (t) => {
  const bad = path.join(dir, 'bad-start.yaml');
  writeFileSync(bad, 'rules:\n  - { id: a, frobnicate: true }\n');
  const r = run(['--scenario', bad, '--port', '0', '--admin-port', '0']);
  t.equal(await r.exited, 2);
  t.match(r.err(), /frobnicate/);
  noStack(t, r.err());
  const missing = run(['--scenario', 'no-such-builtin', '--port', '0', '--admin-port', '0']);
  t.equal(await missing.exited, 2);
  t.match(missing.err(), /rate-limit-storm/, 'lists the names that exist');
  const flag = run(['--port', 'abc', '--no-such-flag']);
  t.equal(await flag.exited, 2);
  noStack(t, flag.err());
  const duration = run(['--upstream-timeout', 'soon', '--port', '0', '--admin-port', '0']);
  t.equal(await duration.exited, 2);
  t.match(duration.err(), /--upstream-timeout: "soon" is not a duration/);
  noStack(t, duration.err());
});

t.test('scenarios lists the built-ins with their descriptions', async (t) => {
  const r = run(['scenarios']);
  t.equal(await r.exited, 0);
  for (const name of [
    'passthrough',
    'rate-limit-storm',
    'flaky-internal',
    'activation-required',
    'version-mismatch',
    'slow-dealer',
    'inventory-churn',
    'lead-gauntlet',
    'retryable-overrides',
    'lossy-envelope',
    'network-chaos',
    'stream-chaos',
    'full-gauntlet',
  ]) {
    t.match(r.out(), new RegExp(`^${name}\\s+\\S`, 'm'), name);
  }
});

t.test('the proxy with --watch: a valid change is applied, a bad one is reported and the old scenario keeps running; SIGTERM exits 0', async (t) => {
  const file = path.join(dir, 'watched.yaml');
  writeFileSync(file, 'rules: []\n');
  const journal = path.join(dir, 'journal.jsonl');
  const r = run(['--scenario', file, '--watch', '--port', '0', '--admin-port', '0', '--journal', journal]);
  t.teardown(() => void r.child.kill('SIGKILL'));
  const [, url] = await r.waitFor(/proxy on (http:\/\/127\.0\.0\.1:\d+)/);
  await r.waitFor(/watching/);
  const body = skillRequest('inventory.search', { pagination: { limit: 1 } });
  const before = JSON.parse((await request(url + '/a2a', { body, headers: { 'content-type': 'application/json' } })).body.toString());
  t.ok(before.result, 'passes through before the change');

  // Editors often write a temp file and rename it over the original.
  writeFileSync(file + '.tmp', 'rules:\n  - { id: now-failing, error: INTERNAL_ERROR }\n');
  renameSync(file + '.tmp', file);
  await r.waitFor(/reloaded/);
  const after = JSON.parse((await request(url + '/a2a', { body, headers: { 'content-type': 'application/json' } })).body.toString());
  t.equal(after.error?.data?.code, 'INTERNAL_ERROR', 'the new scenario applies');

  writeFileSync(file, 'rules:\n  - { id: broken, when: { probability: 7 }, error: INTERNAL_ERROR }\n');
  await r.waitFor(/was not loaded[\s\S]*\/rules\/0\/when\/probability/);
  t.pass('the bad file is reported with the path of its problem');
  const still = JSON.parse((await request(url + '/a2a', { body, headers: { 'content-type': 'application/json' } })).body.toString());
  t.equal(still.error?.data?.code, 'INTERNAL_ERROR', 'the old scenario keeps running');

  r.child.kill('SIGTERM');
  t.equal(await r.exited, 0, 'exits 0 on SIGTERM');
});

t.test('--target at a dealer that is down: the proxy starts and answers 502 with the proxy marker', async (t) => {
  const r = run(['--target', 'http://127.0.0.1:9', '--port', '0', '--admin-port', '0']);
  t.teardown(() => void r.child.kill('SIGKILL'));
  const [, url] = await r.waitFor(/proxy on (http:\/\/127\.0\.0\.1:\d+)/);
  const reply = await request(url + '/a2a', { body: skillRequest('inventory.search', {}, 'q') });
  t.equal(reply.status, 502);
  t.equal(reply.headers['x-aap-chaos-source'], 'proxy');
  t.equal(JSON.parse(reply.body.toString()).id, 'q');
  r.child.kill('SIGTERM');
  t.equal(await r.exited, 0);
});

t.test('report: thresholds by flag, exit 1 on a FAIL, 2 on an unreadable journal', async (t) => {
  const base = {
    http_method: 'POST',
    path: '/a2a',
    kind: 'jsonrpc',
    method: 'SendMessage',
    skill: 'inventory.search',
    request_hash: 'h',
    matched: [],
    fired: [],
    effects: [],
    dry_run: false,
    client: 'c',
  };
  const lines = [
    {
      ...base,
      id: '01J00000000000000000000001',
      ts: '',
      t: 1000,
      duration_ms: 1,
      status: 200,
      source: 'injected',
      rpc_code: -32002,
      error_code: 'RATE_LIMITED',
      retryable: true,
      retry_after_ms: 1000,
    },
    { ...base, id: '01J00000000000000000000002', ts: '', t: 1500, duration_ms: 1, status: 200, source: 'dealer' },
  ];
  const file = path.join(dir, 'report.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const failing = run(['report', file]);
  t.equal(await failing.exited, 1, 'came back after 500 ms of a 1000 ms hint');
  t.match(failing.out(), /retry-after\s.*FAIL/);
  const lenient = run(['report', file, '--retry-after-tolerance-ms', '600', '--storm-tolerance', '1']);
  t.equal(await lenient.exited, 0, 'a looser tolerance passes');
  const junit = path.join(dir, 'report.xml');
  const json = run(['report', file, '--json', '--junit', junit]);
  t.equal(await json.exited, 1);
  t.equal(JSON.parse(json.out()).ok, false);
  writeFileSync(path.join(dir, 'broken.jsonl'), '{"id":\n');
  const broken = run(['report', path.join(dir, 'broken.jsonl')]);
  t.equal(await broken.exited, 2);
  t.match(broken.out() + broken.err(), /broken\.jsonl:1/);
});

t.test('flags reach the running proxy: header faults, client key, journal file, --report, --mock-streaming, --profile', async (t) => {
  const journal = path.join(dir, 'flags.jsonl');
  const r = run([
    '--scenario',
    'passthrough',
    '--port',
    '0',
    '--admin-port',
    '0',
    '--allow-header-faults',
    '--client-key',
    'header:x-buyer',
    '--journal',
    journal,
    '--report',
    '--mock-streaming',
    '--profile',
    '2.0',
    '--upstream-timeout',
    '2s',
  ]);
  t.teardown(() => void r.child.kill('SIGKILL'));
  const [, url] = await r.waitFor(/proxy on (http:\/\/127\.0\.0\.1:\d+)/);
  const card = JSON.parse((await request(url + '/.well-known/agent-card.json')).body.toString());
  t.equal(card.capabilities.streaming, true, '--mock-streaming');
  const forced = JSON.parse(
    (
      await request(url + '/a2a', {
        body: skillRequest('inventory.search'),
        headers: { 'content-type': 'application/json', 'x-aap-chaos': 'RATE_LIMITED', 'x-buyer': 'alice' },
      })
    ).body.toString(),
  );
  t.equal(forced.error.code, -32000, '--allow-header-faults, with the 2.0 code for RATE_LIMITED');
  t.ok(Array.isArray(forced.error.data), '--profile 2.0: data is an array');
  r.child.kill('SIGTERM');
  t.equal(await r.exited, 0);
  t.match(r.out(), /retry-after/, '--report prints the report on exit');
  const lines = (await import('node:fs'))
    .readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  // The header value is a keyed hash in the journal, never the value itself.
  t.ok(
    lines.some((l) => /^key:[0-9a-f]{12}$/.test(l.client) && l.client_key === 'header:x-buyer' && l.error_code === 'RATE_LIMITED'),
    '--client-key and --journal',
  );
  t.notOk(
    lines.some((l) => l.client === 'alice'),
    'the raw header value never appears',
  );
});

t.test('--dry-run journals what would have happened and changes nothing', async (t) => {
  const r = run(['--scenario', 'flaky-internal', '--port', '0', '--admin-port', '0', '--dry-run', '--allow-header-faults']);
  t.teardown(() => void r.child.kill('SIGKILL'));
  const [, url] = await r.waitFor(/proxy on (http:\/\/127\.0\.0\.1:\d+)/);
  const reply = JSON.parse(
    (
      await request(url + '/a2a', {
        body: skillRequest('dealer.information'),
        headers: { 'content-type': 'application/json', 'x-aap-chaos': 'INTERNAL_ERROR' },
      })
    ).body.toString(),
  );
  t.ok(reply.result, 'the dealer answered');
  const [, admin] = (await r.waitFor(/admin API on (http:\/\/127\.0\.0\.1:\d+)/)) as RegExpMatchArray;
  const journal = (await request(admin + '/journal')).body
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.match(journal.at(-1), { dry_run: true, fired: ['header:INTERNAL_ERROR'], source: 'dealer' });
  r.child.kill('SIGTERM');
  t.equal(await r.exited, 0);
});

t.test('ctl drives a running instance from the shell', async (t) => {
  const r = run(['--scenario', 'flaky-internal', '--port', '0', '--admin-port', '0']);
  t.teardown(() => void r.child.kill('SIGKILL'));
  const [, url] = await r.waitFor(/proxy on (http:\/\/127\.0\.0\.1:\d+)/);
  const [, admin] = await r.waitFor(/admin API on (http:\/\/127\.0\.0\.1:\d+)/);
  const ctl = async (...args: string[]) => {
    const c = run(['ctl', ...args, '--admin', admin!]);
    return { code: await c.exited, out: c.out(), err: c.err() };
  };
  const status = await ctl('status');
  t.equal(status.code, 0);
  t.match(status.out, /vehicle-outage/);
  t.equal((await ctl('disable', 'vehicle-outage')).code, 0);
  t.match((await ctl('status')).out, /^\s*off\s+vehicle-outage\s/m, 'shown as off');
  await request(url + '/a2a', { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
  const journal = await ctl('journal', '--limit', '5');
  t.equal(journal.code, 0);
  t.match(journal.out, /dealer\.information/);
  t.equal((await ctl('use', 'passthrough')).code, 0);
  t.match((await ctl('report', '--json')).out, /"checks"/);
  const bad = await ctl('enable', 'no-such-rule');
  t.equal(bad.code, 1, 'an unknown rule is a failed call');
  noStack(t, bad.out + bad.err);
  r.child.kill('SIGTERM');
  t.equal(await r.exited, 0);
});
