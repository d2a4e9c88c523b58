// --max-body holds for every body, not only one that declares its length: a chunked body that
// grows past the limit is refused with 413 whether the proxy was buffering it or streaming it on.
// Requests the proxy refuses on its own (413, a body that stalls past --body-timeout, a buyer that
// leaves mid-body) each get a journal line, and none of them is reported as a proxy failure.
import t, { type Test } from 'tap';
import net from 'node:net';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { rawJsonBody as bodyOf, sendRaw as raw } from '../helpers/raw-socket.js';

const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
const chunkedHead = Buffer.from('POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');

/** Collects journal lines as requests finish, and the process warnings raised meanwhile. */
function watch(t: Test, rt: Runtime): { lines: JournalEntry[]; warnings: string[]; next(): Promise<JournalEntry> } {
  const lines: JournalEntry[] = [];
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  rt.events.on('request', (e) => lines.push(e));
  t.teardown(() => {
    process.off('warning', onWarning);
  });
  return {
    lines,
    warnings,
    next: () => new Promise((resolve) => rt.events.once('request', resolve)),
  };
}

t.test('a chunked body past --max-body while streamed on to the dealer gets 413', async (t) => {
  let dealerBytes = 0;
  const dealer = await startUpstream((req, res, body) => {
    if (req.method === 'POST') dealerBytes += body.length;
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  t.teardown(() => dealer.close());
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, target: dealer.url, profile: '1.3', maxInspectBytes: 1_000, maxBodyBytes: 5_000 });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const line = seen.next();
  const parts = [chunkedHead, ...Array.from({ length: 10 }, () => chunk(Buffer.alloc(1_000, 'a'))), Buffer.from('0\r\n\r\n')];
  const got = await raw(rt.url, parts);
  t.match(got.reply, /^HTTP\/1\.1 413 /, '413, not 200 or 502');
  t.equal(bodyOf(got.reply).error.code, -32600, 'with a JSON-RPC error');
  t.match(bodyOf(got.reply).error.message, /more than --max-body \(5000 bytes\)/, 'naming the limit');
  t.ok(got.closed, 'and the connection closes');
  t.equal(dealer.seen.filter((r) => r.method === 'POST').length, 0, 'the dealer never got a complete body');
  t.equal(dealerBytes, 0);
  const entry = await line;
  t.equal(entry.status, 413, 'journaled with its status');
  t.equal(entry.source, 'proxy');
  t.same(seen.warnings, [], 'no proxy failure reported');
});

t.test('a chunked body past --max-body below --max-inspect-bytes gets 413 too', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, maxBodyBytes: 1_000 });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const line = seen.next();
  const got = await raw(rt.url, [chunkedHead, chunk(Buffer.alloc(800, 'a')), chunk(Buffer.alloc(800, 'a')), Buffer.from('0\r\n\r\n')]);
  t.match(got.reply, /^HTTP\/1\.1 413 /);
  t.match(bodyOf(got.reply).error.message, /more than --max-body \(1000 bytes\)/);
  t.ok(got.closed);
  t.equal((await line).status, 413);
});

t.test('a chunked body within both limits is forwarded whole', async (t) => {
  const dealer = await startUpstream((_req, res) => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  t.teardown(() => dealer.close());
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, target: dealer.url, profile: '1.3', maxInspectBytes: 1_000, maxBodyBytes: 50_000 });
  t.teardown(() => rt.close());
  const body = Buffer.from(skillRequest('inventory.search', { q: 'x'.repeat(4_000) }));
  const got = await raw(rt.url, [
    Buffer.from(chunkedHead.toString().replace('\r\n\r\n', '\r\nconnection: close\r\n\r\n')),
    chunk(body.subarray(0, 2_000)),
    chunk(body.subarray(2_000)),
    Buffer.from('0\r\n\r\n'),
  ]);
  t.match(got.reply, /^HTTP\/1\.1 200 /);
  t.equal(dealer.seen.find((r) => r.method === 'POST')?.body.toString(), body.toString(), 'byte for byte');
});

t.test('a body declared over --max-body is journaled as a 413 refusal', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, maxBodyBytes: 1_000 });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const line = seen.next();
  const got = await raw(rt.url, [Buffer.from('POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2000\r\n\r\n{')]);
  t.match(got.reply, /^HTTP\/1\.1 413 /);
  const entry = await line;
  t.equal(entry.status, 413);
  t.equal(entry.source, 'proxy');
  t.equal(entry.path, '/a2a');
  t.equal(entry.rpc_code, -32600, 'the error the buyer got');
  t.match(entry.notes?.join(' '), /--max-body/, 'and why');
});

t.test('a body stalled past --body-timeout is journaled as a 408, with no proxy failure reported', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, headerTimeoutMs: 300, bodyTimeoutMs: 300 });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const line = seen.next();
  const got = await raw(rt.url, [
    Buffer.from('POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":'),
  ]);
  t.match(got.reply, /^HTTP\/1\.1 408 /);
  const entry = await line;
  t.equal(entry.status, 408);
  t.equal(entry.source, 'proxy');
  t.match(entry.notes?.join(' '), /--body-timeout/);
  t.same(seen.warnings, [], 'a slow buyer is not a proxy failure');
});

t.test('a buyer that leaves mid-body is journaled as aborted, with no proxy failure reported', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {} });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const line = seen.next();
  const { port } = new URL(rt.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  // Leaves once the proxy has the request's headers and is waiting for the rest of its body.
  rt.proxy.server.once('request', () => setImmediate(() => socket.destroy()));
  socket.write('POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":');
  const entry = await line;
  t.equal(entry.aborted, true);
  t.equal(entry.status, 0);
  t.same(seen.warnings, []);
});

t.test("the embedded mock's 1 MiB cap reaches the buyer as the mock's 413, not as an unreachable dealer", async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, profile: '1.3' });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const big = skillRequest('lead.submit', { note: 'x'.repeat(2 * 1024 * 1024) });
  for (const [name, headers] of [
    ['declared length', { 'content-length': String(Buffer.byteLength(big)) }],
    ['chunked', { 'transfer-encoding': 'chunked' }],
  ] as const) {
    const reply = await request(`${rt.url}/a2a`, { body: big, headers: { 'content-type': 'application/json', ...headers } });
    t.equal(reply.status, 413, `${name}: 413`);
    t.not(reply.headers['x-aap-chaos-source'], 'proxy', `${name}: the dealer's answer, passed on`);
    const error = JSON.parse(reply.body.toString()).error;
    t.equal(error.code, -32600);
    t.match(error.message, /exceeds 1 MiB/);
    t.notMatch(error.message, /could not reach|EPIPE/);
  }
  t.match(
    seen.lines.map((l) => [l.status, l.source]),
    [
      [413, 'dealer'],
      [413, 'dealer'],
    ],
    "journaled as the dealer's 413",
  );
  t.same(seen.warnings, []);
  // The mock read the body through: its connection is still good for the next request.
  t.equal((await request(`${rt.url}/a2a`, { body: skillRequest('inventory.search'), headers: { 'content-type': 'application/json' } })).status, 200);
});

// A body still arriving, past both limits, on a request a rule resets: the reset closes the
// connection mid-body. The stream that caps the body then errs with no reader left; it crashed
// the process (an unhandled 'error' event) on Node 22 and 24.
t.test('a reset while an over-long chunked body is still arriving leaves the proxy serving', async (t) => {
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    scenario: 'rules:\n  - id: rst\n    match: { headers: { x-rule: rst } }\n    network: reset\n',
    maxInspectBytes: 1_000,
    maxBodyBytes: 5_000,
  });
  t.teardown(() => rt.close());
  const seen = watch(t, rt);
  const head = Buffer.from('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-rule: rst\r\ntransfer-encoding: chunked\r\n\r\n');
  const line = seen.next();
  const got = await raw(rt.url, [head, chunk(Buffer.alloc(200_000, 'x'))]);
  t.ok(got.closed, 'the connection is closed');
  await line;
  const after = await request(`${rt.url}/a2a`, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
  t.equal(after.status, 200, 'the proxy still serves');
});

// A connection reset by a rule while a later pipelined request's long body is still being read
// for its refusal: that body is aborted after its reader had let go of it. Node 22 and 24 then
// emitted an 'error' nobody listened to, and the process ended.
t.test('a reset on a pipelined request while a later long body is read for a refusal leaves the proxy serving', async (t) => {
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    scenario:
      'rules:\n  - { id: rst, match: { headers: { x-rule: rst } }, network: reset }\n  - { id: ext, match: { headers: { x-rule: ext } }, require: { extension: true } }\n',
    maxInspectBytes: 1_000,
  });
  t.teardown(() => rt.close());
  const small = skillRequest('dealer.information');
  const long = Buffer.alloc(70_000, 'a');
  const head = (rule: string, length: number) => `POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\nx-rule: ${rule}\r\ncontent-length: ${length}\r\n\r\n`;
  for (let i = 0; i < 3; i++) {
    const got = await raw(rt.url, [Buffer.concat([Buffer.from(head('rst', Buffer.byteLength(small)) + small), Buffer.from(head('ext', long.length)), long])]);
    t.ok(got.closed, `run ${i + 1}: the connection is closed`);
  }
  const after = await request(`${rt.url}/a2a`, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
  t.equal(after.status, 200, 'the proxy still serves');
});
