// aapFetch against the proxy over real sockets: what it keeps for readAapError, and what it
// leaves exactly as it was (successes, the agent card, streams).
import t from 'tap';
import { aapFetch, readAapError } from '../../src/buyer/index.js';
import { startChaos } from '../../src/index.js';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { skillRequestJson } from '../helpers/sdk-buyer.js';

const scenario = JSON.stringify({
  scenario: 'forced-errors',
  seed: 1,
  rules: [
    { id: 'rate', error: 'RATE_LIMITED', retry_after_ms: 900 },
    { id: 'not-json', network: 'malformed_json' },
  ].map((rule) => ({ ...rule, when: { probability: 0 } })),
});

const chaos = await startChaos({ scenario, allowHeaderFaults: true, profile: '1.3', mock: { streaming: true } });
t.teardown(() => chaos.close());

const post = (fetchImpl: typeof fetch, rule?: string, method = 'SendMessage') =>
  fetchImpl(`${chaos.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': AAP_EXTENSION_URI_1_3, ...(rule ? { 'x-aap-chaos': rule } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: skillRequestJson('inventory.search', { filters: {} }) }),
  });

t.test('an exception that kept only the message (as older SDKs build them) still reads in full', async (t) => {
  const fetchImpl = aapFetch() as typeof fetch;
  const reply = (await (await post(fetchImpl, 'rate')).json()) as { error: { message: string } };
  const bare = new Error(reply.error.message);
  t.equal(readAapError(new Error(reply.error.message + ' (another)')).code, undefined, 'a different message finds nothing');
  const reading = readAapError(bare);
  t.match(reading, { kind: 'aap', code: 'RATE_LIMITED', jsonRpcCode: -32002, retryable: true, retryAfterMs: 900, httpStatus: 200 });
  t.same(readAapError(bare), reading, 'reading the same exception again gives the same answer');
  t.equal(readAapError(new Error(reply.error.message)).code, undefined, 'a kept reply answers for one exception only');
});

t.test("the parsed error.data is the object the reply is filed under (the SDK's path on 2xx)", async (t) => {
  const reply = (await (await post(aapFetch() as typeof fetch, 'rate')).json()) as { error: { code: number; message: string; data: unknown } };
  const sdkLike = { name: 'TaskNotCancelableError', message: 'renamed by some wrapper', envelopeCode: 0, data: reply.error.data };
  t.match(readAapError(sdkLike), { code: 'RATE_LIMITED', jsonRpcCode: -32002, httpStatus: 200 }, 'found by identity, whatever else the exception says');
});

t.test('a 2xx body that is not JSON: the SyntaxError the SDK gets carries the status', async (t) => {
  const response = await post(aapFetch() as typeof fetch, 'not-json');
  const error = await response.json().then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, SyntaxError);
  t.match(readAapError(error), { kind: 'transport', httpStatus: 200, retryable: true });
});

t.test('successes, the card and streams come through as they are', async (t) => {
  const fetchImpl = aapFetch() as typeof fetch;
  const direct = (await (await post(fetch)).json()) as { result: { message: { parts: unknown[] } } };
  const through = (await (await post(fetchImpl)).json()) as { result: { message: { parts: unknown[] } } };
  t.same(through.result.message.parts, direct.result.message.parts);
  const card = await fetchImpl(`${chaos.url}/.well-known/agent-card.json`);
  t.equal(card.status, 200);
  t.match(await card.json(), { name: String, supportedInterfaces: Array });
  const stream = await post(fetchImpl, undefined, 'SendStreamingMessage');
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  t.match(await stream.text(), /^data: \{/m, 'the stream is read by its consumer, not by aapFetch');
});

t.test('a network failure rejects as it would without aapFetch', async (t) => {
  const closed = await startChaos({});
  const url = closed.url;
  await closed.close();
  const error = await aapFetch()(`${url}/a2a`, { method: 'POST', body: '{}' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, TypeError);
  t.match(readAapError(error), { kind: 'transport', retryable: true, code: /^(ECONNREFUSED|ECONNRESET)$/ });
});
