// Redis lost mid-run: requests keep flowing without waiting on it, the rules that need shared
// state are suspended (journal, /status, metric), and they fire again once Redis is back.
import t from 'tap';
import { redisMissing } from '../helpers/debian-services.js';
import { search, startFleet } from '../helpers/fleet.js';
import { request, waitFor } from '../helpers/servers.js';

t.test('Redis stopped mid-run and restarted', { skip: redisMissing() }, async (t) => {
  const fleet = await startFleet(t, 2, {
    scenario: 'outage',
    rules: [
      { id: 'one-per-minute', match: { skill: 'inventory.search' }, rate_limit: { limit: 1, window_ms: 60_000 } },
      { id: 'vehicle-unavailable', match: { skill: 'inventory.vehicle' }, error: 'VEHICLE_UNAVAILABLE' },
    ],
  });
  const [a, b] = fleet.replicas as [(typeof fleet.replicas)[0], (typeof fleet.replicas)[0]];
  t.equal((await search(a.url, 1)).code, undefined);
  t.equal((await search(b.url, 2)).code, 'RATE_LIMITED', 'the limit is shared before the outage');

  await fleet.redis.stop();
  await waitFor(() => a.status().state.status === 'suspended' && b.status().state.status === 'suspended', 10_000);
  const started = Date.now();
  const during = await Promise.all([search(a.url, 3), search(b.url, 4), search(a.url, 5)]);
  t.ok(Date.now() - started < 3_000, 'requests do not wait on the lost store');
  t.same(
    during.map((r) => r.code),
    [undefined, undefined, undefined],
    'requests are forwarded while the rule is suspended',
  );
  const line = a.journal.all().at(-1)!;
  t.same(line.suspended, ['one-per-minute'], 'the journal names the suspended rule');
  t.match(line.effects.join(' '), /one-per-minute: suspended, shared state unavailable/);
  t.ok(a.status().state.suspended_requests >= 1, '/status counts suspended requests');
  t.match((await request(`${a.adminUrl}/metrics`)).body.toString(), /aap_chaos_rules_suspended_total\{rule="one-per-minute"\} [1-9]/, 'and so does the metric');
  // A rule that needs no shared state still fires.
  const vehicle = await request(`${a.url}/a2a`, {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { type: 'inventory.vehicle.request', vin: 'V1' } }] } },
    }),
    headers: { 'content-type': 'application/json' },
  });
  t.match(vehicle.body.toString(), /VEHICLE_UNAVAILABLE/, 'a stateless rule keeps firing during the outage');
  t.notOk(a.journal.all().at(-1)!.suspended, 'a request no stateful rule matches needs no shared state at all');

  await fleet.redis.start();
  await waitFor(() => a.status().state.status === 'ready' && b.status().state.status === 'ready', 15_000);
  // The restarted Redis is empty: the scenario in force is published again, as one new version.
  await waitFor(() => a.status().state.scenario_version === 2 && b.status().state.scenario_version === 2, 15_000);
  t.equal((await search(b.url, 6)).code, undefined, 'after recovery the fresh window lets one through');
  t.equal((await search(a.url, 7)).code, 'RATE_LIMITED', 'and the shared limit fires again, on the other replica');
  t.notOk(a.journal.all().at(-1)!.suspended, 'nothing is suspended any more');
});
