// The mock dealer answers like a stock A2A v1.0 server and like the seed's dealer: every method
// name, the trailing-slash route, task ids, card caching, merged validation, vehicles by
// year/make/model, appointment proposals. Raw JSON-RPC over sockets and the @a2a-js/sdk client.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ListTasksRequest, SendMessageRequest } from '@a2a-js/sdk';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import { createBuyer, sendSkill, skillRequestJson } from '../helpers/sdk-buyer.js';
import { request } from '../helpers/servers.js';
import { seedViolations } from '../helpers/seed-envelope-check.js';
import { tempDir } from '../helpers/temp-dir.js';
import { aapError, postRpc, startDealer } from './dealer-fixture.js';

const NOW = new Date('2030-01-07T12:00:00Z');
const lead = {
  customer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  consent: { granted_at: '2030-01-06T10:00:00Z', allowed_channels: ['email'], consent_text: 'I agree.', scope: ['lead_submission'] },
  source_agent: { name: 'test-buyer' },
};
const rpc = (method: string, params: unknown = {}, id: number | string = 3) => ({ jsonrpc: '2.0', id, method, params });
const errorCode = (json: Record<string, unknown>) => (json.error as { code: number } | undefined)?.code;

t.test('every A2A v1.0 method gets its proper answer, at /a2a and /a2a/', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  const search = skillRequestJson('inventory.search', { pagination: { limit: 1 } });
  const cases: [string, unknown, number | undefined][] = [
    ['SendMessage', search, undefined],
    ['SendStreamingMessage', search, -32004],
    ['GetTask', { id: 'no-such-task' }, -32001],
    ['ListTasks', {}, undefined],
    ['CancelTask', { id: 'no-such-task' }, -32001],
    ['SubscribeToTask', { id: 'no-such-task' }, -32004],
    ['CreateTaskPushNotificationConfig', {}, -32003],
    ['GetTaskPushNotificationConfig', {}, -32003],
    ['ListTaskPushNotificationConfigs', {}, -32003],
    ['DeleteTaskPushNotificationConfig', {}, -32003],
    ['GetExtendedAgentCard', {}, -32004],
    ['NoSuchMethod', {}, -32601],
  ];
  for (const [method, params, code] of cases) {
    const { json } = await postRpc(mockUrl, rpc(method, params));
    t.equal(errorCode(json), code, `${method}: ${code ?? 'result'}`);
    if (json.error) t.same(seedViolations(json, '1.3'), [], `${method}: valid by the seed`);
  }
  const slash = await request(`${mockUrl}/a2a/`, { body: JSON.stringify(rpc('GetExtendedAgentCard')), headers: { 'content-type': 'application/json' } });
  t.equal(slash.status, 200, 'POST /a2a/ is routed like /a2a');
  t.equal(JSON.parse(slash.body.toString()).error.code, -32004);
  const ok = await request(`${mockUrl}/a2a/`, { body: JSON.stringify(rpc('SendMessage', search)), headers: { 'content-type': 'application/json' } });
  t.ok(JSON.parse(ok.body.toString()).result.message, 'a skill call at /a2a/ is served');
});

t.test('SendMessage naming an unknown message.taskId is TaskNotFoundError, raw and through the SDK', async (t) => {
  const { url, mockUrl } = await startDealer(t);
  const params = skillRequestJson('inventory.search', {});
  (params.message as Record<string, unknown>).taskId = 'task-that-never-was';
  const { json } = await postRpc(mockUrl, rpc('SendMessage', params));
  t.match(json.error, { code: -32001, data: [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] });
  const buyer = await createBuyer(url);
  try {
    await buyer.sendMessage(SendMessageRequest.fromJSON(params));
    t.fail('expected TaskNotFoundError');
  } catch (e) {
    t.ok(isJsonRpcError(e) && e.envelopeCode === -32001, 'the SDK raises -32001');
  }
});

// (The SDK refuses push-config calls itself when the card says pushNotifications: false; raw -32003 is tested above.)
t.test('the SDK client lists tasks (an empty page without streaming) and meets -32001 for an unknown task', async (t) => {
  const { url } = await startDealer(t);
  const buyer = await createBuyer(url);
  const codeOf = async (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (e) => (isJsonRpcError(e) ? e.envelopeCode : String(e)),
    );
  t.same(await buyer.listTasks(ListTasksRequest.fromJSON({})), { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  t.equal(await codeOf(buyer.getTask({ id: 'no-such-task' } as never)), -32001);
});

t.test('the card is served with Cache-Control and an ETag, and If-None-Match gets 304', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  const cardUrl = `${mockUrl}/.well-known/agent-card.json`;
  const card = await request(cardUrl);
  t.match(card.headers['cache-control'], /max-age=\d+/);
  t.match(card.headers.etag, /^".+"$/);
  const again = await request(cardUrl, { headers: { 'if-none-match': card.headers.etag as string } });
  t.equal(again.status, 304);
  t.equal(again.body.length, 0);
  t.equal((await request(cardUrl, { headers: { 'if-none-match': '"stale"' } })).status, 200);
});

t.test('the 1.3 card does not require the extension, and the 1.3 mock serves without it', async (t) => {
  const { mockUrl } = await startDealer(t, {}, 'direct');
  const card = JSON.parse((await request(`${mockUrl}/.well-known/agent-card.json`)).body.toString());
  t.same(
    card.capabilities.extensions.map((e: { uri: string; required: boolean }) => [e.uri, e.required]),
    [[AAP_EXTENSION_URI_1_3, false]],
  );
  const reply = await sendSkill(await createBuyer(mockUrl), 'dealer.information');
  t.ok(reply.ok, 'served without A2A-Extensions');
  const draft = await startDealer(t, { profile: '2.0' }, 'direct');
  const card20 = JSON.parse((await request(`${draft.mockUrl}/.well-known/agent-card.json`)).body.toString());
  t.equal(card20.capabilities.extensions[0].required, true, 'the 2.0 card requires it, and the 2.0 mock enforces it');
});

t.test('validation runs every stage and merges all problems in one reply', async (t) => {
  const { url } = await startDealer(t, { now: () => NOW });
  const buyer = await createBuyer(url);
  const locations = (reply: Awaited<ReturnType<typeof sendSkill>>) =>
    (aapError(reply).details as { errors: { instanceLocation: string }[] }).errors.map((e) => e.instanceLocation).sort();

  const schemaAndCondition = await sendSkill(buyer, 'lead.submit', { ...lead, message: 7, vehicle_of_interest: { condition: 'fair' } });
  t.equal(aapError(schemaAndCondition).code, 'SCHEMA_VALIDATION_FAILED', 'a schema problem sets the code');
  t.same(locations(schemaAndCondition), ['/message', '/vehicle_of_interest/condition']);

  const tradeInAndTestDrive = await sendSkill(buyer, 'lead.submit', {
    ...lead,
    trade_in: { condition: 'new' },
    appointment: { appointment_type: 'test_drive' },
  });
  t.equal(aapError(tradeInAndTestDrive).code, 'INVALID_CONDITION', 'then a wrong condition vocabulary');
  t.same(locations(tradeInAndTestDrive), ['/trade_in/condition', '/vehicle_of_interest']);
});

t.test('a lead naming year+make+model that match nothing is VEHICLE_NOT_FOUND', async (t) => {
  const { url, dealer } = await startDealer(t, { now: () => NOW });
  const buyer = await createBuyer(url);
  const none = await sendSkill(buyer, 'lead.submit', { ...lead, vehicle_of_interest: { year: 1999, make: 'Honda', model: 'Nothing' } });
  t.match(aapError(none), { code: 'VEHICLE_NOT_FOUND', details: { year: 1999, make: 'Honda', model: 'Nothing' } });
  const v = dealer.inventory.firstAvailable();
  const found = await sendSkill(buyer, 'lead.submit', { ...lead, vehicle_of_interest: { year: v.year, make: v.make.toUpperCase(), model: v.model } });
  t.ok(found.ok, 'a listed model (make in any case) is accepted');
  const partial = await sendSkill(buyer, 'lead.submit', { ...lead, vehicle_of_interest: { make: 'Nothing' } });
  t.ok(partial.ok, 'part of year/make/model is taken as is');
});

t.test('APPOINTMENT_TIME_UNAVAILABLE only when there is no alternative at all', async (t) => {
  const dir = tempDir(t, 'aap-chaos-closed-');
  const file = path.join(dir, 'closed.json');
  const closed = Object.fromEntries(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((d) => [d, null]));
  writeFileSync(
    file,
    JSON.stringify({
      dealer: { name: 'Closed Motors', rooftops: [{ name: 'Main', timezone: 'UTC', schedules: [{ name: 'Sales', value: closed }] }] },
      vehicles: [],
    }),
  );
  const { url } = await startDealer(t, { inventoryFile: file, now: () => NOW });
  const reply = await sendSkill(await createBuyer(url), 'lead.submit', {
    ...lead,
    appointment: { appointment_type: 'service', appointment_at: '2030-01-09T17:00:00Z' },
  });
  t.equal(aapError(reply).code, 'APPOINTMENT_TIME_UNAVAILABLE');
});
