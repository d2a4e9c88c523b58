import t from 'tap';
import { classifyRequest, parseExtensionsHeader } from '../../src/protocol/classify.js';

const classify = (body: string | undefined, headers: Record<string, string> = {}, oversized = false) =>
  classifyRequest({ method: 'POST', url: '/a2a?x=1', headers, clientIp: '127.0.0.1', body: body === undefined ? undefined : Buffer.from(body), oversized });

const send = (id: unknown, parts: unknown[] = [{ data: { type: 'inventory.search.request' } }]) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message: { parts } } });

t.test('classification table', async (t) => {
  const rows: [string, ReturnType<typeof classify>, Partial<ReturnType<typeof classify>>][] = [
    ['numeric id', classify(send(7)), { kind: 'jsonrpc', rpcMethod: 'SendMessage', id: 7, skill: 'inventory.search', path: '/a2a' }],
    ['string id', classify(send('7')), { kind: 'jsonrpc', id: '7' }],
    ['null id', classify(send(null)), { kind: 'jsonrpc', id: null }],
    ['object id is not an id', classify(send({ a: 1 })), { kind: 'jsonrpc', id: null }],
    ['skill from a later part', classify(send(1, [{ text: 'hi' }, { data: { type: 'lead.submit.request' } }])), { skill: 'lead.submit' }],
    ['no skill', classify(send(1, [{ text: 'hi' }])), { kind: 'jsonrpc', skill: undefined }],
    ['malformed', classify('{"jsonrpc":'), { kind: 'not-json', id: null }],
    ['not JSON-RPC', classify('{"hello":1}'), { kind: 'not-jsonrpc' }],
    ['wrong jsonrpc version keeps the id', classify('{"jsonrpc":"1.0","id":3,"method":"x"}'), { kind: 'not-jsonrpc', id: 3 }],
    ['batch', classify(`[${send(1)}]`), { kind: 'batch' }],
    ['scalar', classify('42'), { kind: 'not-jsonrpc' }],
    ['oversized', classify(undefined, {}, true), { kind: 'oversized' }],
    ['empty', classify(''), { kind: 'none' }],
  ];
  for (const [name, got, want] of rows) t.match(got, want, name);
});

t.test('A2A headers', async (t) => {
  const c = classify(send(1), { 'a2a-version': ' 1.0 ', 'a2a-extensions': 'https://a/x , https://b/y,https://a/x,, ' });
  t.equal(c.a2aVersion, '1.0');
  t.same(c.extensions, ['https://a/x', 'https://b/y'], 'trimmed and de-duplicated');
  t.equal(classify(send(1), { 'a2a-version': '' }).a2aVersion, '', 'empty stays empty');
  t.equal(classify(send(1)).a2aVersion, undefined, 'absent stays absent');
  t.same(parseExtensionsHeader(['u1, u2', 'u2,u3']), ['u1', 'u2', 'u3'], 'repeated headers are joined');
});
