import t from 'tap';
import { CancelTaskRequest, GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, A2A_ERROR_DOMAIN, ERROR_INFO_TYPE } from '../../src/protocol/codes.js';
import { createBuyer, requestOptions, sendSkill, skillRequestJson } from '../helpers/sdk-buyer.js';
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
    t.match((reply.data as unknown[])[0], {
      '@type': ERROR_INFO_TYPE,
      reason: 'EXTENSION_SUPPORT_REQUIRED',
      domain: A2A_ERROR_DOMAIN,
      metadata: { extensionUri: DRAFT, requiredHeader: 'A2A-Extensions' },
    });
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
    const { headers, json } = await postRpc(url, rpc('SendMessage', searchParams), {
      'a2a-version': '1.0',
      'a2a-extensions': `https://other.example/ext, ${DRAFT}`,
    });
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

t.test('a stated A2A-Version the dealer does not serve is -32009 under both profiles; only 2.0 refuses an absent one', async (t) => {
  const v13 = await startDealer(t);
  const v20 = await startDealer(t, { profile: '2.0' });
  const activated = { 'a2a-extensions': DRAFT };
  const cases: [string, string, Record<string, string>, number | undefined][] = [
    ['1.3', v13.url, { 'a2a-version': '99.0' }, -32009],
    ['1.3', v13.url, { 'a2a-version': '' }, -32009],
    ['1.3', v13.url, {}, undefined],
    ['1.3', v13.url, { 'a2a-version': '1.0' }, undefined],
    ['2.0', v20.url, { 'a2a-version': '99.0', ...activated }, -32009],
    ['2.0', v20.url, activated, -32009],
    ['2.0', v20.url, { 'a2a-version': '1.0', ...activated }, undefined],
  ];
  for (const [profile, url, headers, code] of cases) {
    const label = `${profile}, A2A-Version ${'a2a-version' in headers ? JSON.stringify(headers['a2a-version']) : 'absent'}`;
    const { json } = await postRpc(url, rpc('SendMessage', searchParams), headers);
    t.equal((json.error as { code?: number } | undefined)?.code, code, `${label}: ${code ?? 'served'}`);
    if (code) t.match(errorOf(json), { message: /A2A-Version/, data: [{ reason: 'VERSION_NOT_SUPPORTED', domain: A2A_ERROR_DOMAIN }] });
  }
  // The SDK always states 1.0; a fetch that states 99.0 instead is what a buyer of another A2A version sends.
  const stating99: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('A2A-Version', '99.0');
    return fetch(input, { ...init, headers });
  };
  for (const [profile, url] of [
    ['1.3', v13.url],
    ['2.0', v20.url],
  ] as const) {
    const buyer = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: stating99 })] }).createFromUrl(url);
    const reply = await sendSkill(buyer, 'dealer.information', {}, { extensionUri: profile === '2.0' ? DRAFT : undefined });
    t.equal(reply.ok ? undefined : reply.envelopeCode, -32009, `${profile}: the SDK raises -32009`);
  }
});

t.test('a part of an unsupported media type next to a valid AAP DataPart is -32005 under both profiles', async (t) => {
  const pdf = { url: 'https://buyer.example/brochure.pdf', mediaType: 'application/pdf' };
  const withPart = (extra: Record<string, unknown>) => {
    const params = skillRequestJson('inventory.search', { pagination: { limit: 1 } });
    (params.message as { parts: unknown[] }).parts.push(extra);
    return params;
  };
  for (const profile of ['1.3', '2.0'] as const) {
    const { url } = await startDealer(t, { profile });
    const headers: Record<string, string> = profile === '2.0' ? { 'a2a-version': '1.0', 'a2a-extensions': DRAFT } : {};
    const raw = await postRpc(url, rpc('SendMessage', withPart({ raw: 'iVBORw0KGgo=', mediaType: 'image/png' })), headers);
    t.match(
      errorOf(raw.json),
      { code: -32005, message: /parts\[1\].*image\/png/, data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: A2A_ERROR_DOMAIN }] },
      `${profile}: raw`,
    );
    const text = await postRpc(url, rpc('SendMessage', withPart({ text: 'Looking for a Civic.', mediaType: 'text/plain' })), headers);
    t.ok(text.json.result, `${profile}: a text/plain part beside it is still served (AAP dealers ignore TextParts)`);
    const buyer = await createBuyer(url);
    let code: number | undefined;
    try {
      await buyer.sendMessage(SendMessageRequest.fromJSON(withPart(pdf)), requestOptions({ extensionUri: profile === '2.0' ? DRAFT : undefined }));
    } catch (e) {
      if (isJsonRpcError(e)) code = e.envelopeCode;
      else throw e;
    }
    t.equal(code, -32005, `${profile}: the SDK raises -32005 for an application/pdf part`);
  }
});

t.test('the success reply is a ROLE_AGENT message with a fresh messageId and the request contextId', async (t) => {
  const { url } = await startDealer(t);
  const request = rpc('SendMessage', skillRequestJson('dealer.information', {}, { contextId: 'ctx-42' }), 'req-abc');
  const { json } = await postRpc(url, request);
  t.equal(json.id, 'req-abc', 'a string id is echoed as a string');
  const message = (json.result as { message: Record<string, unknown> }).message;
  t.match(message, {
    role: 'ROLE_AGENT',
    contextId: 'ctx-42',
    parts: [{ mediaType: 'application/vnd.autoagent.dealer-information-response+json', data: { type: 'dealer.information.response' } }],
  });
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
    rpc('SendMessage', {
      message: { parts: [{ data: { type: 'inventory.search.request', filters: { make: 'Honda' }, sort: null } }] },
      configuration: { acceptedOutputModes: 'x' },
    }),
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
