// A client that stalls while sending its request is answered 408 (with a JSON-RPC error) and cut
// off within the header and body timeouts, on the proxy, the mock dealer and the admin API; a body
// declared over --max-body gets 413 before any of it is read.
import t, { type Test } from 'tap';
import { rawJsonBody, sendRaw } from '../helpers/raw-socket.js';
import { startRuntime } from '../../src/runtime.js';
import { startMockDealer } from '../../src/mock/server.js';

const timeouts = { headerTimeoutMs: 300, bodyTimeoutMs: 300 };

/** Writes `bytes` and then nothing more; resolves with what came back once the server closes. */
const stall = (url: string, bytes: string) => sendRaw(url, [bytes]);

const stalledHead = 'POST /a2a HTTP/1.1\r\nhost: x\r\ncontent-type: appl';
const stalledBody = 'POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":';

function assertTimedOut(t: Test, got: { reply: string; ms: number; closed: boolean }, what: string) {
  t.ok(got.closed, `${what}: the connection is closed`);
  t.ok(got.ms < 5_000, `${what}: within the bound (${got.ms} ms, Node's default is about 300 s)`);
  t.match(got.reply, /^HTTP\/1\.1 408 Request Timeout/, `${what}: 408`);
  const body = rawJsonBody(got.reply);
  t.equal(body.error.code, -32600, `${what}: a JSON-RPC error`);
  t.match(body.error.message, /not received in time/);
}

t.test('proxy and admin API: stalled headers and stalled bodies', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, ...timeouts });
  t.teardown(() => rt.close());
  assertTimedOut(t, await stall(rt.url, stalledHead), 'proxy, headers');
  assertTimedOut(t, await stall(rt.url, stalledBody), 'proxy, body');
  const adminBody = stalledBody.replace('/a2a', '/scenario').replace('POST', 'PUT');
  assertTimedOut(t, await stall(rt.adminUrl, stalledHead), 'admin, headers');
  assertTimedOut(t, await stall(rt.adminUrl, adminBody), 'admin, body');
});

t.test('mock dealer: stalled body', async (t) => {
  const mock = await startMockDealer({ port: 0, timeouts });
  t.teardown(() => mock.close());
  assertTimedOut(t, await stall(mock.url, stalledBody), 'mock, body');
});

t.test('a body declared over --max-body gets 413 with a JSON-RPC error, unread', async (t) => {
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, maxBodyBytes: 1000 });
  t.teardown(() => rt.close());
  const got = await stall(rt.url, 'POST /a2a HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 11000000\r\n\r\n{');
  t.match(got.reply, /^HTTP\/1\.1 413 /);
  const body = rawJsonBody(got.reply);
  t.equal(body.error.code, -32600);
  t.match(body.error.message, /11000000 bytes, more than --max-body \(1000 bytes\)/);
  t.ok(got.closed, 'and the connection closes');
});
