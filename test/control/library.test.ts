import { once } from 'node:events';
import t from 'tap';
import { startChaos, type JournalEntry } from '../../src/index.js';
import { callSkill, TEST_SCENARIO } from './control-fixture.js';

t.test('startChaos: a buyer meets the scenario, the test reads journal, report and events', async (t) => {
  const chaos = await startChaos({ scenario: TEST_SCENARIO });
  t.teardown(() => chaos.close());
  t.match(chaos.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(chaos.adminUrl, /^http:\/\/127\.0\.0\.1:\d+$/);

  const live = once(chaos.events, 'request') as Promise<[JournalEntry]>;
  const reply = await callSkill(chaos.url, 'inventory.search', 'lib-1');
  const body = JSON.parse(reply.body.toString('utf8'));
  t.equal(body.id, 'lib-1');
  t.equal(body.error.code, -32002, 'RATE_LIMITED under the 1.3 profile');

  const [event] = await live;
  t.equal(event.rpc_id, 'lib-1');
  t.same(chaos.journal(), [event]);
  const report = chaos.report();
  t.same(report.clients, [event.client]);
});

t.test('startChaos: use() swaps the scenario, and rejects a bad one keeping the old', async (t) => {
  const chaos = await startChaos({ scenario: TEST_SCENARIO });
  t.teardown(() => chaos.close());
  await chaos.use({ scenario: 'calm', rules: [] });
  t.equal(chaos.status().scenario, 'calm');
  const reply = await callSkill(chaos.url, 'inventory.search');
  t.equal(reply.headers['x-aap-chaos-rule'], undefined);

  await t.rejects(chaos.use('rules:\n  - id: x\n    error: NOPE\n'), { name: 'ScenarioRejectedError', problems: [/\/rules\/0\/error/] });
  t.equal(chaos.status().scenario, 'calm');
});

t.test('startChaos: a listener that throws does not break the request path', async (t) => {
  const chaos = await startChaos();
  t.teardown(() => chaos.close());
  chaos.events.on('request', () => {
    throw new Error('listener bug');
  });
  const warned = once(process, 'warning') as Promise<[Error]>;
  const reply = await callSkill(chaos.url, 'dealer.information');
  t.equal(reply.status, 200);
  t.match((await warned)[0].message, /a 'request' listener threw: listener bug/);
});

t.test('startChaos: close() is idempotent and frees the ports', async (t) => {
  const chaos = await startChaos();
  await chaos.close();
  await chaos.close();
  await t.rejects(callSkill(chaos.url, 'dealer.information'), { code: 'ECONNREFUSED' });
});
