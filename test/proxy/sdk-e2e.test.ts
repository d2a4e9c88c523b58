// The real @a2a-js/sdk client, created from the proxy's URL, talks to a loopback dealer through
// the proxy and gets what it gets directly.
import t from 'tap';
import { startProxy } from '../../src/proxy/server.js';
import { startMockDealer } from '../../src/mock/index.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';

t.test('SendMessage through the proxy reaches the dealer and returns what a direct call returns', async (t) => {
  const dealer = await startMockDealer({ port: 0, host: '127.0.0.1' });
  const proxy = await startProxy({ target: dealer.url, port: 0 });
  const seen: JournalEntry[] = [];
  proxy.proxy.observers.push({ onRequestDone: (e) => seen.push(e) });
  t.teardown(async () => {
    await proxy.close();
    await dealer.close();
  });

  const viaProxy = await createBuyer(proxy.url);
  const direct = await createBuyer(dealer.url);
  const payload = { filters: { make: ['Honda'] }, pagination: { skip: 0, limit: 3 } };
  const a = await sendSkill(viaProxy, 'inventory.search', payload);
  const b = await sendSkill(direct, 'inventory.search', payload);
  t.ok(a.ok && b.ok, 'both calls succeed');
  if (a.ok && b.ok) t.same(a.data, b.data, 'same result through the proxy as direct');

  const calls = seen.filter((e) => e.method === 'SendMessage');
  t.equal(calls.length, 1, 'the SDK call provably travelled through the proxy');
  t.equal(calls[0]!.skill, 'inventory.search');
  t.equal(calls[0]!.a2a_version, '1.0', 'the SDK sends A2A-Version 1.0');
  t.ok(
    seen.some((e) => e.path === '/.well-known/agent-card.json'),
    'the card was fetched through the proxy',
  );
});
