import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { runCtl } from '../../src/commands/ctl.js';
import type { Runtime } from '../../src/runtime.js';
import { callSkill, startTestRuntime } from './control-fixture.js';
import { request } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Runs one ctl command against `rt`; collects what it printed. */
async function ctl(rt: Pick<Runtime, 'adminUrl'>, argv: string[], extra: { token?: string; signal?: AbortSignal; onLine?: (l: string) => void } = {}) {
  const lines: string[] = [];
  const code = await runCtl(argv, {
    adminUrl: rt.adminUrl,
    token: extra.token ?? '',
    out: (l) => {
      lines.push(l);
      extra.onLine?.(l);
    },
    signal: extra.signal,
  });
  return { code, lines, text: lines.join('\n') };
}

async function tempFile(t: Test, name: string, text: string): Promise<string> {
  const dir = tempDir(t, 'aap-chaos-ctl-');
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

t.test('ctl status prints the scenario and each rule with its counters', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const { code, text } = await ctl(rt, ['status']);
  t.equal(code, 0);
  t.match(text, /proxy http:\/\/127\.0\.0\.1:\d+ -> http:\/\/127\.0\.0\.1:\d+ \(embedded mock dealer\)/);
  t.match(text, /scenario control-test \(seed 7\)/);
  t.match(text, /on +throttle-search +matched 1 +fired 1/);
  t.match(text, /journal: 1 in memory \(ring 10000\)/);
});

t.test('ctl use FILE sends the file and reports the new scenario', async (t) => {
  const rt = await startTestRuntime(t);
  const file = await tempFile(t, 'mine.yaml', 'scenario: mine\nrules:\n  - id: only\n    error: INTERNAL_ERROR\n');
  const { code, text } = await ctl(rt, ['use', file]);
  t.equal(code, 0);
  t.match(text, /scenario mine loaded \(seed \d+, 1 rule\)/);
  t.equal(rt.engine?.name, 'mine');
});

t.test('ctl use NAME loads a built-in', async (t) => {
  const rt = await startTestRuntime(t);
  const { code, text } = await ctl(rt, ['use', 'passthrough']);
  t.equal(code, 0);
  t.match(text, /scenario passthrough loaded/);
});

t.test('ctl use with a bad file prints every problem and exits 1', async (t) => {
  const rt = await startTestRuntime(t);
  const file = await tempFile(t, 'bad.yaml', 'rules:\n  - id: a\n    error: NOPE\n');
  const { code, lines } = await ctl(rt, ['use', file]);
  t.equal(code, 1);
  t.equal(lines[0], `error: ${file}: scenario rejected (1 problem); the running scenario is kept`);
  t.ok(lines[1]!.startsWith(`  ${file}:3:`), `names the file and line: ${lines[1]}`);
  t.match(lines[1], /\/rules\/0\/error/);
  t.notMatch(lines.join('\n'), /scenario text/);
  t.equal(rt.engine?.name, 'control-test', 'the old scenario is kept');
});

t.test('ctl events says when the proxy went away and exits non-zero', async (t) => {
  const rt = await startTestRuntime(t);
  const running = ctl(rt, ['events']);
  while (rt.hub.clientCount === 0) await new Promise((r) => setTimeout(r, 5));
  await rt.close();
  const { code, text } = await running;
  t.equal(code, 1);
  t.match(text, /error: the proxy went away \(it is shutting down\)/);
});

t.test('ctl use with a missing file says so without calling the API', async (t) => {
  const rt = await startTestRuntime(t);
  const { code, text } = await ctl(rt, ['use', './no-such.yaml']);
  t.equal(code, 1);
  t.match(text, /no such file: \.\/no-such\.yaml/);
});

t.test('ctl disable and enable switch a rule', async (t) => {
  const rt = await startTestRuntime(t);
  const off = await ctl(rt, ['disable', 'throttle-search']);
  t.equal(off.code, 0);
  t.match(off.text, /^off +throttle-search/);
  t.equal(rt.engine?.rules().find((r) => r.id === 'throttle-search')?.enabled, false);
  const on = await ctl(rt, ['enable', 'throttle-search']);
  t.match(on.text, /^on +throttle-search/);
  const unknown = await ctl(rt, ['enable', 'nope']);
  t.equal(unknown.code, 1);
  t.match(unknown.text, /answered 404: no rule "nope"/);
});

t.test('ctl reset clears the counters', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const { code, text } = await ctl(rt, ['reset']);
  t.equal(code, 0);
  t.match(text, /reset/);
  t.equal(rt.engine?.rules()[0]?.matched, 0);
  t.equal(rt.journal.all().length, 0);
});

t.test('ctl journal prints JSON lines, honouring --since and --limit', async (t) => {
  const rt = await startTestRuntime(t);
  for (const id of ['a', 'b', 'c']) await callSkill(rt.url, 'inventory.search', id);
  const all = await ctl(rt, ['journal']);
  t.equal(all.code, 0);
  const entries = all.lines.map((l) => JSON.parse(l));
  t.same(
    entries.map((e) => e.rpc_id),
    ['a', 'b', 'c'],
  );
  const some = await ctl(rt, ['journal', '--since', entries[0].id, '--limit', '1']);
  t.same(
    some.lines.map((l) => JSON.parse(l).rpc_id),
    ['b'],
  );
});

t.test('ctl report prints the verdict table, or JSON with --json', async (t) => {
  const rt = await startTestRuntime(t);
  await callSkill(rt.url, 'inventory.search');
  const table = await ctl(rt, ['report']);
  t.equal(table.code, 0);
  t.match(table.text, /CHECK +ID +CLIENT +VERDICT/);
  const json = await ctl(rt, ['report', '--json']);
  t.type(JSON.parse(json.text).ok, 'boolean');
});

t.test('ctl events prints one readable line per request until stopped', async (t) => {
  const rt = await startTestRuntime(t);
  const stop = new AbortController();
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const seen: string[] = [];
  const running = ctl(rt, ['events'], {
    signal: stop.signal,
    onLine: (l) => {
      seen.push(l);
      if (seen.length === 1) stop.abort();
    },
  });
  // The hub counts the client once the upgrade is done; only then can a request reach it.
  const poll = setInterval(() => rt.hub.clientCount > 0 && connected(), 5);
  await ready;
  clearInterval(poll);
  await callSkill(rt.url, 'inventory.search', 'ev');
  const { code } = await running;
  t.equal(code, 0, 'resolves when the socket closes');
  t.match(seen[0], /^\d\d:\d\d:\d\d\.\d{3} +SendMessage +inventory\.search +throttle-search +RATE_LIMITED.* +200 +\d+ ms$/);
});

t.test("ctl events and ctl journal never pass a buyer's control characters to the terminal", async (t) => {
  const rt = await startTestRuntime(t);
  const stop = new AbortController();
  const seen: string[] = [];
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const running = ctl(rt, ['events'], { signal: stop.signal, onLine: (l) => seen.push(l) === 1 && stop.abort() });
  const poll = setInterval(() => rt.hub.clientCount > 0 && connected(), 5);
  await ready;
  clearInterval(poll);
  // An OSC window title, a C1 "clear screen", a line break faking a second event, a bidi override.
  const method = '\u001b]0;owned\u0007\u009b2J\n12:00:00.000  SendMessage  fake\u202e';
  const reply = await request(`${rt.url}/a2a`, {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
    headers: { 'content-type': 'application/json' },
  });
  t.ok(reply.status > 0);
  t.equal((await running).code, 0);
  t.equal(seen.length, 1, 'one line for one request');
  t.notMatch(seen[0], /[\u0000-\u001f\u007f-\u009f\u202e]/, 'no control character reaches the terminal');
  t.match(seen[0], '\\u001b]0;owned\\u0007\\u009b2J\\u000a12:00', 'they are shown as escapes');

  const journal = await ctl(rt, ['journal']);
  t.notMatch(journal.text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, 'nor through ctl journal');
  t.match(JSON.parse(journal.lines.at(-1)!).method, method, 'whose lines stay JSON that reads back the same');
});

t.test('ctl with a token, without one, and against nothing', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: 'tok' });
  const denied = await ctl(rt, ['status']);
  t.equal(denied.code, 1);
  t.match(denied.text, /answered 401: missing or wrong admin token/);
  t.equal((await ctl(rt, ['status'], { token: 'tok' })).code, 0);
  const deniedEvents = await ctl(rt, ['events']);
  t.equal(deniedEvents.code, 1);
  t.match(deniedEvents.text, /GET \/events answered 401/);

  const closedUrl = await closedPortUrl();
  const gone = await ctl({ adminUrl: closedUrl }, ['status']);
  t.equal(gone.code, 1);
  t.match(gone.text, `cannot reach the admin API at ${closedUrl} (ECONNREFUSED)`);
  const goneEvents = await ctl({ adminUrl: closedUrl }, ['events']);
  t.equal(goneEvents.code, 1);
  t.match(goneEvents.text, 'ECONNREFUSED');
});

t.test('ctl with an unknown verb or missing argument prints usage and exits 2', async (t) => {
  const rt = { adminUrl: 'http://127.0.0.1:1' };
  const unknown = await ctl(rt, ['explode']);
  t.equal(unknown.code, 2);
  t.match(unknown.text, /unknown ctl command "explode"\nusage: aap-chaos ctl status/);
  t.equal((await ctl(rt, ['enable'])).code, 2);
  t.equal((await ctl(rt, [])).code, 2);
});

/** A loopback URL nothing listens on: a port that was just free. */
async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
