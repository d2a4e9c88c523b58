import t from 'tap';
import { GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { createBuyer, requestOptions, skillRequestJson } from '../helpers/sdk-buyer.js';
import { postRpc, startDealer } from './dealer-fixture.js';

const streamRequest = { jsonrpc: '2.0', id: 3, method: 'SendStreamingMessage', params: skillRequestJson('inventory.search', { pagination: { limit: 2 } }) };

/** Reads a whole SSE reply and returns the JSON of each `data:` frame, in order. */
async function readFrames(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as Record<string, unknown>);
}

t.test('SendStreamingMessage answers a task stream: submitted, working, artifact, completed', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const res = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(streamRequest),
  });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const frames = await readFrames(res);
  t.ok(
    frames.every((f) => f.jsonrpc === '2.0' && f.id === 3),
    'every frame is a full JSON-RPC response with the request id',
  );
  const results = frames.map((f) => f.result as Record<string, Record<string, unknown>>);
  t.same(
    results.map((r) => Object.keys(r)[0]),
    ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
  );
  t.equal((results[0]!.task!.status as { state: string }).state, 'TASK_STATE_SUBMITTED');
  t.equal((results[1]!.statusUpdate!.status as { state: string }).state, 'TASK_STATE_WORKING');
  t.match(results[2]!.artifactUpdate, {
    artifact: {
      parts: [{ mediaType: 'application/vnd.autoagent.inventory-search-response+json', data: { type: 'inventory.search.response', data: { limit: 2 } } }],
    },
  });
  t.equal((results[3]!.statusUpdate!.status as { state: string }).state, 'TASK_STATE_COMPLETED');
  const taskId = results[0]!.task!.id;
  t.ok(
    results.slice(1).every((r) => Object.values(r)[0]!.taskId === taskId),
    'updates name the task',
  );
});

t.test('the SDK consumes the stream through the proxy, and can read the finished task', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const buyer = await createBuyer(url);
  const events: string[] = [];
  let taskId = '';
  let payloadType = '';
  const request = SendMessageRequest.fromJSON(skillRequestJson('dealer.information'));
  for await (const event of buyer.sendMessageStream(request, requestOptions({ extensionUri: AAP_EXTENSION_URI_1_3 }))) {
    const payload = event.payload;
    if (!payload) continue;
    events.push(payload.$case);
    if (payload.$case === 'task') taskId = payload.value.id;
    if (payload.$case === 'artifactUpdate') {
      const content = payload.value.artifact?.parts[0]?.content;
      if (content?.$case === 'data') payloadType = String((content.value as { type?: unknown }).type);
    }
  }
  t.same(events, ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  t.equal(payloadType, 'dealer.information.response');
  const task = await buyer.getTask(GetTaskRequest.fromJSON({ id: taskId }));
  t.equal(task.id, taskId);
  t.equal(task.artifacts.length, 1);
  const cancel = await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: taskId } });
  t.equal((cancel.json.error as { code: number }).code, -32002, 'a completed task cannot be canceled');
});

t.test('a skill error before the stream starts is a plain JSON-RPC reply', async (t) => {
  const { url } = await startDealer(t, { streaming: true });
  const bad = { ...streamRequest, params: skillRequestJson('inventory.search', { pagination: { limit: 0 } }) };
  const { headers, json } = await postRpc(url, bad);
  t.match(headers.get('content-type'), /^application\/json/);
  t.equal((json.error as { code: number }).code, -32602);
});

t.test('frames are flushed one at a time', async (t) => {
  const { mockUrl } = await startDealer(t, { streaming: true }, 'direct');
  const res = await fetch(`${mockUrl}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(streamRequest) });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const text = new TextDecoder().decode(first.value);
  t.match(text, /^data: .*"task"/);
  t.notMatch(text, /TASK_STATE_COMPLETED/, 'the first chunk does not already hold the end of the stream');
  await reader.cancel();
});
