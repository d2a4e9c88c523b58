// ListTasks as A2A v1.0 §3.1.4 asks of every dealer: only the caller's tasks, newest status first,
// cursor pages whose nextPageToken is always there ("" on the last page), a contextId filter,
// pageSize bounds (-32602 outside 1..100) and artifacts only when asked for. Raw JSON-RPC and the
// @a2a-js/sdk client, through the proxy unless the mock's own socket is needed.
import t from 'tap';
import { GetTaskRequest, ListTasksRequest } from '@a2a-js/sdk';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { createBuyer, skillRequestJson } from '../helpers/sdk-buyer.js';
import { postRpc, startDealer, streamTask } from './dealer-fixture.js';

const listTasks = (params: Record<string, unknown> = {}, id = 5) => ({ jsonrpc: '2.0', id, method: 'ListTasks', params });
const search = (contextId?: string) => skillRequestJson('inventory.search', { pagination: { limit: 1 } }, contextId === undefined ? {} : { contextId });

interface Page {
  tasks: { id: string; contextId: string; status: { state: string; timestamp: string }; artifacts?: unknown[] }[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

async function listed(url: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Page> {
  const { json } = await postRpc(url, listTasks(params), headers);
  if (!json.result) throw new Error(`ListTasks failed: ${JSON.stringify(json.error)}`);
  return json.result as Page;
}

/** Makes `n` tasks, one after the other, and returns their ids in the order they were made. */
async function makeTasks(url: string, n: number, contextId?: string, headers: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await streamTask(url, search(contextId), headers));
  return ids;
}

t.test('without streaming the dealer holds no tasks: an empty last page, raw and through the SDK', async (t) => {
  const { url } = await startDealer(t);
  const page = await listed(url);
  t.same(page, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 }, 'nextPageToken is present and empty');
  const sdk = await (await createBuyer(url)).listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
  t.same(sdk, { tasks: [], nextPageToken: '', pageSize: 10, totalSize: 0 });
});

t.test('one page: newest status first, artifacts left out unless asked for', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const made = await makeTasks(url, 3);
  const page = await listed(url);
  t.same(
    page.tasks.map((task) => task.id),
    [...made].reverse(),
    'the last task made comes first',
  );
  t.equal(page.nextPageToken, '', 'the only page is the last one');
  t.equal(page.totalSize, 3);
  t.ok(
    page.tasks.every((task) => !('artifacts' in task)),
    'no artifacts member at all by default',
  );
  const times = page.tasks.map((task) => Date.parse(task.status.timestamp));
  t.same(
    times,
    [...times].sort((a, b) => b - a),
    'status timestamps descend',
  );

  const full = await listed(url, { includeArtifacts: true });
  t.ok(
    full.tasks.every((task) => Array.isArray(task.artifacts) && task.artifacts.length === 1),
    'includeArtifacts: each task with its artifact',
  );
});

t.test('several pages with a cursor, raw and through the SDK', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const made = await makeTasks(url, 5);
  const walk = async (next: (token: string) => Promise<Page>) => {
    const pages: Page[] = [];
    let token = '';
    do {
      const page = await next(token);
      pages.push(page);
      token = page.nextPageToken;
      t.type(token, 'string', 'nextPageToken is always present');
    } while (token !== '' && pages.length < 10);
    return pages;
  };

  const raw = await walk((token) => listed(url, { pageSize: 2, ...(token ? { pageToken: token } : {}) }));
  t.same(
    raw.map((p) => p.tasks.length),
    [2, 2, 1],
  );
  t.same(
    raw.flatMap((p) => p.tasks.map((task) => task.id)),
    [...made].reverse(),
    'every task once, newest first',
  );
  t.ok(raw.every((p) => p.pageSize === 2 && p.totalSize === 5));

  const buyer = await createBuyer(url);
  const sdk = await walk(async (token) => (await buyer.listTasks(ListTasksRequest.fromJSON({ pageSize: 2, pageToken: token }))) as unknown as Page);
  t.same(
    sdk.flatMap((p) => p.tasks.map((task) => task.id)),
    [...made].reverse(),
    'the SDK walks the same pages',
  );
});

t.test('filters: contextId, status and statusTimestampAfter', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const a = await makeTasks(url, 2, 'ctx-a');
  await makeTasks(url, 1, 'ctx-b');
  const page = await listed(url, { contextId: 'ctx-a' });
  t.same(
    page.tasks.map((task) => task.id),
    [...a].reverse(),
  );
  t.ok(page.tasks.every((task) => task.contextId === 'ctx-a'));
  t.equal(page.totalSize, 2, 'totalSize counts the filtered tasks');
  const sdk = await (await createBuyer(url)).listTasks(ListTasksRequest.fromJSON({ contextId: 'ctx-b' }));
  t.equal(sdk.tasks.length, 1);
  t.equal(sdk.tasks[0]!.contextId, 'ctx-b');
  t.equal((await listed(url, { status: 'TASK_STATE_COMPLETED' })).totalSize, 3, 'status filter: every finished task');
  t.equal((await listed(url, { status: 'TASK_STATE_WORKING' })).totalSize, 0, 'status filter: none still working');
  t.equal((await listed(url, { statusTimestampAfter: '2000-01-01T00:00:00Z' })).totalSize, 3, 'statusTimestampAfter in the past: all');
  t.equal((await listed(url, { statusTimestampAfter: '2999-01-01T00:00:00Z' })).totalSize, 0, 'statusTimestampAfter in the future: none');
});

t.test('pageSize out of range, and other bad params, are -32602 naming the member', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ pageSize: 0 }, /\/params\/pageSize is out of range/],
    [{ pageSize: 101 }, /\/params\/pageSize is out of range/],
    [{ pageSize: 2.5 }, /\/params\/pageSize/],
    [{ pageSize: '10' }, /\/params\/pageSize/],
    [{ pageToken: 'not-a-token-we-issued' }, /\/params\/pageToken/],
    [{ status: 'DONE' }, /\/params\/status/],
    [{ includeArtifacts: 'yes' }, /\/params\/includeArtifacts/],
    [{ statusTimestampAfter: 'yesterday' }, /\/params\/statusTimestampAfter/],
  ];
  for (const [params, message] of cases) {
    const { status, json } = await postRpc(url, listTasks(params));
    t.equal(status, 200);
    t.match(json, { id: 5, error: { code: -32602, message } }, JSON.stringify(params));
  }
  const buyer = await createBuyer(url);
  const thrown = await buyer.listTasks(ListTasksRequest.fromJSON({ pageSize: 101 })).then(
    () => undefined,
    (e) => e,
  );
  t.ok(isJsonRpcError(thrown) && thrown.envelopeCode === -32602, 'the SDK raises -32602 for pageSize 101');
});

t.test('a caller sees only its own tasks, in the list and by id', async (t) => {
  const { mockUrl } = await startDealer(t, { streaming: true }, 'direct');
  const one = { authorization: 'Bearer buyer-one' };
  const two = { authorization: 'Bearer buyer-two' };
  const [mine] = await makeTasks(mockUrl, 1, undefined, one);
  t.same(
    (await listed(mockUrl, {}, one)).tasks.map((task) => task.id),
    [mine],
  );
  t.same((await listed(mockUrl, {}, two)).tasks, [], 'another credential lists nothing');
  t.same((await listed(mockUrl)).tasks, [], 'no credential lists nothing');
  const other = await postRpc(mockUrl, { jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: mine } }, two);
  t.match(other.json, { error: { code: -32001 } }, "another caller's task is not found");
  const own = await postRpc(mockUrl, { jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: mine } }, one);
  t.match(own.json, { result: { id: mine } });
  // The SDK sends no credential: it sees the anonymous caller's tasks, here one made without a credential.
  const [anonymous] = await makeTasks(mockUrl, 1);
  const buyer = await createBuyer(mockUrl);
  t.same(
    (await buyer.listTasks(ListTasksRequest.fromJSON({}))).tasks.map((task) => task.id),
    [anonymous],
  );
  t.equal((await buyer.getTask(GetTaskRequest.fromJSON({ id: anonymous }))).id, anonymous);
});
