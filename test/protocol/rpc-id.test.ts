// The JSON-RPC id comes back exactly as the buyer wrote it, byte for byte, also where JavaScript
// numbers cannot hold it; an oversized request's id is found at the top level of its first bytes.
import t from 'tap';
import { topLevelIdText, rpcIdFromText, ExactNumberId } from '../../src/protocol/rpc-id.js';
import { harness } from '../helpers/chaos-harness.js';
import { request } from '../helpers/servers.js';
import { startMockDealer } from '../../src/mock/index.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';

const body = (idText: string, extra = '') =>
  `{"jsonrpc":"2.0","method":"SendMessage"${extra},"params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"type":"inventory.search.request"}}]},"metadata":{"id":99}},"id":${idText}}`;

t.test('topLevelIdText skips nested members and strings that look like ids', async (t) => {
  t.equal(topLevelIdText(Buffer.from(body('12345678901234567890'))), '12345678901234567890');
  t.equal(topLevelIdText(Buffer.from('{"a":"\\"id\\":5","b":{"id":6},"id" : 1.5e3 }')), '1.5e3');
  t.equal(topLevelIdText(Buffer.from('{"a":[1,{"id":2}]}')), undefined, 'no top-level id');
  t.equal(topLevelIdText(Buffer.from('{"\\u0069d":"x"}')), '"x"', 'an escaped key is still "id"');
  t.equal(topLevelIdText(Buffer.from('{"jsonrpc":"2.0","id":7,"params":{"big":"')), '7', 'found in a prefix');
  t.equal(topLevelIdText(Buffer.from('[1]')), undefined);
  t.equal(rpcIdFromText('"abc"'), 'abc');
  t.equal(rpcIdFromText('7'), 7);
  t.ok(rpcIdFromText('1.5e3') instanceof ExactNumberId);
  t.equal(rpcIdFromText('{"x":1}'), null, 'an object id is not echoed');
  t.equal(rpcIdFromText(undefined), null);
});

for (const idText of ['12345678901234567890', '1.5e3', '-0', '1.0', '7']) {
  t.test(`an injected error echoes id ${idText} byte for byte`, async (t) => {
    const h = await harness(t, 'rules:\n  - id: boom\n    error: INTERNAL_ERROR\n', { proxy: { profile: '2.0' } });
    const reply = await request(`${h.proxy.url}/a2a`, { body: body(idText), headers: { 'content-type': 'application/json' } });
    const text = reply.body.toString();
    t.match(text, `"id":${idText},`, 'the id bytes as sent');
    t.same(envelopeProblems('2.0', JSON.parse(text)), []);
  });
}

t.test('the mock dealer and a patched dealer reply echo the exact id too', async (t) => {
  const mock = await startMockDealer({ port: 0 });
  t.teardown(() => mock.close());
  const ok = await request(`${mock.url}/a2a`, { body: body('12345678901234567890'), headers: { 'content-type': 'application/json' } });
  t.match(ok.body.toString(), /^\{"jsonrpc":"2.0","id":12345678901234567890,"result"/, 'a success');
  const bad = await request(`${mock.url}/a2a`, {
    body: body('1.5e3').replace('"type":"inventory.search.request"', '"type":"inventory.search.request","colour":1'),
    headers: { 'content-type': 'application/json' },
  });
  t.match(bad.body.toString(), '"id":1.5e3,', 'an error');
  const h = await harness(t, 'rules:\n  - id: p\n    patch: [{ op: add, path: /x, value: 1 }]\n', { proxy: { target: mock.url } });
  const patched = await request(`${h.proxy.url}/a2a`, { body: body('12345678901234567890'), headers: { 'content-type': 'application/json' } });
  t.match(patched.body.toString(), '"id":12345678901234567890,', 'the dealer reply, rewritten by a patch');
});

t.test('an oversized request answered by a header rule: its id when near the start, else null', async (t) => {
  const h = await harness(t, 'rules:\n  - id: by-header\n    match: { headers: { x-fault: yes } }\n    error: INTERNAL_ERROR\n', {
    proxy: { profile: '2.0', maxInspectBytes: 1024 },
  });
  const padding = 'x'.repeat(200_000);
  const headers = { 'content-type': 'application/json', 'x-fault': 'yes' };
  const first = await request(`${h.proxy.url}/a2a`, {
    body: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"SendMessage","params":{"pad":"${padding}"}}`,
    headers,
  });
  t.match(first.body.toString(), '"id":12345678901234567890,', 'found in the first bytes, echoed exactly');
  t.equal(first.headers.connection, 'close', 'the unread rest is not taken for a next request');
  const last = await request(`${h.proxy.url}/a2a`, { body: `{"jsonrpc":"2.0","method":"SendMessage","params":{"pad":"${padding}"},"id":"late"}`, headers });
  const env = JSON.parse(last.body.toString());
  t.equal(env.id, null, 'beyond the scanned bytes: null');
  t.same(envelopeProblems('2.0', env), []);
  t.equal(h.journal[0]!.kind, 'oversized');
});
