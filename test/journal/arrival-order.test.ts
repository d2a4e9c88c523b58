// Journal ids and the order of arrival: the report, the exam and the timeline read a buyer's
// requests in start order, (t, id), and take the request that follows a reply as the buyer's answer
// to it. `t` counts whole milliseconds, so a fast reply and the buyer's answer often start in the
// same one; their ids must then sort in the order the requests arrived, not by a random draw (a
// generated buyer's prompt answer to IDEMPOTENCY_CONFLICT sorted before the conflict once, and read
// as no answer at all: "gave up on lead.submit").
import t from 'tap';
import { startChaos } from '../../src/index.js';
import { skillRequest } from '../helpers/servers.js';

t.test('requests that start in the same millisecond sort by id in the order they arrived', async (t) => {
  const chaos = await startChaos({ scenario: { scenario: 'arrival-order', rules: [{ id: 'internal', error: 'INTERNAL_ERROR' }] }, state: 'memory' });
  t.teardown(() => chaos.close());
  // One request after another on one connection, each sent once the previous reply is read, until
  // enough of them shared a millisecond with the one before (bounded: a slow machine shares fewer).
  const sent: number[] = [];
  let shared = 0;
  for (let i = 0; i < 3000 && shared < 40; i++) {
    const reply = await fetch(`${chaos.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: skillRequest('inventory.search', {}, i),
    });
    await reply.arrayBuffer();
    sent.push(i);
    if (i % 100 === 99) shared = sameMillisecondPairs(chaos.journal());
  }
  const journal = chaos.journal();
  shared = sameMillisecondPairs(journal);
  t.ok(shared >= 1, `${shared} requests started in the same millisecond as the one before (of ${sent.length})`);
  const byStart = [...journal].sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : 1)).map((e) => e.rpc_id);
  t.same(byStart, sent, 'sorted by (t, id), the requests come in the order they were sent');
});

function sameMillisecondPairs(journal: readonly { t: number; rpc_id?: unknown }[]): number {
  const inOrder = [...journal].sort((a, b) => Number(a.rpc_id) - Number(b.rpc_id));
  return inOrder.filter((e, i) => i > 0 && e.t === inOrder[i - 1]!.t).length;
}
