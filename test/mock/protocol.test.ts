import t from 'tap';
import { CancelTaskRequest, GetTaskRequest } from '@a2a-js/sdk';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, A2A_ERROR_DOMAIN, ERROR_INFO_TYPE } from '../../src/protocol/codes.js';
import { createBuyer, sendSkill, skillRequestJson } from '../helpers/sdk-buyer.js';
import { postRpc, startDealer } from './dealer-fixture.js';

const DRAFT = AAP_EXTENSION_URI_2_0_DRAFT;

function rpc(method: string, params: unknown = {}, id: string | number = 7): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params };
}

const searchParams = skillRequestJson('inventory.search', { pagination: { limit: 1 } });

/** What the SDK threw, as the buyer sees it. */
async function caught(promise: Promise<unknown>): Promise<{ code: number | undefined; message: string; data: unknown }> {
  try {
    await promise;
  } catch (e) {
    if (isJsonRpcError(e)) return { code: e.envelopeCode, message: e.message, data: e.data };
    throw e;
  }
  throw new Error('expected the call to fail');
}

function errorOf(json: Record<string, unknown>): { code: number; message: string; data: Record<string, unknown>[] } {
  return json.error as { code: number; message: string; data: Record<string, unknown>[] };
}

t.test('2.0 header policy', async (t) => {
  const { url } = await startDealer(t, { profile: '2.0' });

  t.test('the SDK without A2A-Extensions gets -32008 naming the URI and the header', async (t) => {
    const reply = await sendSkill(await createBuyer(url), 'inventory.search', {});
    if (reply.ok) return t.fail('expected -32008');
    t.equal(reply.envelopeCode, -32008);
    t.match(reply.message, DRAFT);
    t.match(reply.message, 'A2A-Extensions');
    t.match((reply.data as unknown[])[0], { '@type': ERROR_INFO_TYPE, reason: 'EXTENSION_SUPPORT_REQUIRED', domain: A2A_ERROR_DOMAIN, metadata: { extensionUri: DRAFT, requiredHeader: 'A2A-Extensions' } });
  });

  t.test('another AAP URI does not activate this one', async (t) => {
    const { json } = await postRpc(url, rpc('SendMessage', searchParams), { 'a2a-version': '1.0', 'a2a-extensions': AAP_EXTENSION_URI_1_3 });
    t.equal(errorOf(json).code, -32008);
  });

  for (const [label, headers] of [
    ['absent', {}],
    ['empty', { 'a2a-version': '' }],
    ['unsupported', { 'a2a-version': '0.3' }],
  ] as const) {
    t.test(`an ${label} A2A-Version gets -32009`, async (t) => {
      const { status, json } = await postRpc(url, rpc('SendMessage', searchParams), { ...headers, 'a2a-extensions': DRAFT });
      t.equal(status, 200);
      t.equal(json.id, 7);
      t.match(errorOf(json), { code: -32009, data: [{ reason: 'VERSION_NOT_SUPPORTED', domain: A2A_ERROR_DOMAIN }] });
    });
  }

  t.test('the activated extension is echoed in the response A2A-Extensions header', async (t) => {
    const { headers, json } = await postRpc(url, rpc('SendMessage', searchParams), { 'a2a-version': '1.0', 'a2a-extensions': `https://other.example/ext, ${DRAFT}` });
    t.ok(json.result, 'the call succeeds');
    t.equal(headers.get('a2a-extensions'), DRAFT);
  });
});

t.test('1.3 does not enforce the headers, but echoes the extension when sent', async (t) => {
  const { url } = await startDealer(t);
  const bare = await postRpc(url, rpc('SendMessage', searchParams));
  t.ok(bare.json.result, 'no A2A-Version and no A2A-Extensions is fine under 1.3');
  t.equal(bare.headers.get('a2a-extensions'), null);
  const activated = await postRpc(url, rpc('SendMessage', searchParams), { 'a2a-extensions': AAP_EXTENSION_URI_1_3 });
  t.equal(activated.headers.get('a2a-extensions'), AAP_EXTENSION_URI_1_3);
});

t.test('the success reply is a ROLE_AGENT message with a fresh messageId and the request contextId', async (t) => {
  const { url } = await startDealer(t);
  const request = rpc('SendMessage', skillRequestJson('dealer.information', {}, { contextId: 'ctx-42' }), 'req-abc');
  const { json } = await postRpc(url, request);
  t.equal(json.id, 'req-abc', 'a string id is echoed as a string');
  const message = (json.result as { message: Record<string, unknown> }).message;
  t.match(message, { role: 'ROLE_AGENT', contextId: 'ctx-42', parts: [{ mediaType: 'application/vnd.autoagent.dealer-information-response+json', data: { type: 'dealer.information.response' } }] });
  t.not(message.messageId, (request.params as { message: { messageId: string } }).message.messageId);
});

t.test('task methods for unknown tasks, through the SDK', async (t) => {
  const { url } = await startDealer(t);
  const buyer = await createBuyer(url);
  t.equal((await caught(buyer.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })))).code, -32001, 'GetTask of an unknown task');
  t.equal((await caught(buyer.cancelTask(CancelTaskRequest.fromJSON({ id: 'no-such-task' })))).code, -32001, 'CancelTask of an unknown task');
});

t.test('other A2A methods and bad requests, raw', async (t) => {
  const { url } = await startDealer(t);
  const cases: [string, Record<string, unknown>, number][] = [
    ['SendStreamingMessage without streaming', rpc('SendStreamingMessage', searchParams), -32004],
    ['SubscribeToTask without streaming', rpc('SubscribeToTask', { id: 'x' }), -32004],
    ['GetExtendedAgentCard', rpc('GetExtendedAgentCard'), -32004],
    // The SDK refuses push calls itself when the card says pushNotifications: false, so these go raw.
    ['GetTaskPushNotificationConfig', rpc('GetTaskPushNotificationConfig', { taskId: 'x', id: 'y' }), -32003],
    ['ListTaskPushNotificationConfigs', rpc('ListTaskPushNotificationConfigs', { taskId: 'x' }), -32003],
    ['CreateTaskPushNotificationConfig', rpc('CreateTaskPushNotificationConfig', { taskId: 'x' }), -32003],
    ['an unknown method', rpc('message/send', searchParams), -32601],
    ['SendMessage without a message', rpc('SendMessage', {}), -32602],
    ['a part sent as text/html', rpc('SendMessage', skillRequestJson('inventory.search', {}, { mediaType: 'text/html' })), -32005],
    ['output modes the skill cannot produce', rpc('SendMessage', skillRequestJson('inventory.search', {}, { acceptedOutputModes: ['image/png'] })), -32005],
  ];
  for (const [label, body, code] of cases) {
    const { status, json } = await postRpc(url, body);
    t.equal(status, 200, `${label}: HTTP 200`);
    t.equal(errorOf(json).code, code, `${label}: ${code}`);
    t.equal(json.id, 7, `${label}: id echoed`);
  }
});

t.test('transport-level mistakes', async (t) => {
  const { url } = await startDealer(t);

  t.test('invalid JSON is -32700 with id null', async (t) => {
    const { json } = await postRpc(url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    t.same([errorOf(json).code, json.id], [-32700, null]);
  });

  t.test('JSON that is not JSON-RPC is -32600, echoing a readable id', async (t) => {
    t.equal(errorOf((await postRpc(url, '{"hello": "dealer"}')).json).code, -32600);
    const noMethod = (await postRpc(url, { jsonrpc: '2.0', id: 9 })).json;
    t.same([errorOf(noMethod).code, noMethod.id], [-32600, 9]);
    t.equal(errorOf((await postRpc(url, { jsonrpc: '1.0', id: 9, method: 'SendMessage' })).json).code, -32600);
    t.equal(errorOf((await postRpc(url, '[]')).json).code, -32600, 'batches are refused');
  });

  t.test('a wrong Content-Type is -32005', async (t) => {
    const { json } = await postRpc(url, JSON.stringify(rpc('SendMessage', searchParams)), { 'content-type': 'text/plain' });
    t.same([errorOf(json).code, json.id], [-32005, null]);
  });
});

t.test('odd input never crashes the dealer or leaks a stack', async (t) => {
  const { url, mockUrl } = await startDealer(t, { profile: '2.0' });
  const headers = { 'a2a-version': '1.0', 'a2a-extensions': DRAFT };
  const odd: unknown[] = [
    null,
    42,
    'text',
    rpc('SendMessage', null),
    rpc('SendMessage', { message: { parts: [null, 3, { data: null }, { data: { type: 42 } }] } }),
    rpc('SendMessage', { message: { parts: [{ data: { type: 'lead.submit.request', customer: null, consent: 'yes', appointment: [] } }] } }),
    rpc('SendMessage', { message: { parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, sort: null } }] }, configuration: { acceptedOutputModes: 'x' } }),
    rpc('SendMessage', { message: { parts: [{ data: { type: '.request' } }] } }),
    rpc('GetTask', null),
    { jsonrpc: '2.0', id: { nested: true }, method: 'SendMessage', params: searchParams },
  ];
  for (const body of odd) {
    const res = await postRpc(url, JSON.stringify(body), headers);
    t.equal(res.status, 200, JSON.stringify(body));
    t.ok(res.json.error, 'answered with an error envelope');
    t.notMatch(JSON.stringify(res.json), /at .+\.(ts|js):\d+/, 'no stack trace');
  }
  const stillUp = await postRpc(mockUrl, rpc('SendMessage', searchParams), headers);
  t.ok(stillUp.json.result, 'the dealer still serves requests');
});
