// The scenario in force is published through Redis: loaded on one replica, it reaches every
// replica, which all show the same version; a bad one is refused by the replica it was sent to
// and so never reaches the others.
import t from 'tap';
import { Redis } from 'ioredis';
import { redisMissing } from '../helpers/debian-services.js';
import { calm, failing, search, startFleet } from '../helpers/fleet.js';
import { request, waitFor } from '../helpers/servers.js';

t.test('a scenario put on one replica reaches all; a bad one is refused everywhere', { skip: redisMissing() }, async (t) => {
  const fleet = await startFleet(t, 3, calm);
  const versions = () => fleet.replicas.map((r) => r.status().state.scenario_version);
  t.same(versions(), [1, 1, 1], 'every replica starts on the first published version');

  const put = await request(`${fleet.replicas[1]!.adminUrl}/scenario`, { method: 'PUT', body: failing, headers: { 'content-type': 'application/yaml' } });
  t.equal(put.status, 200, 'the second replica accepts the scenario');
  t.equal(JSON.parse(put.body.toString()).scenario_version, 2);
  await waitFor(() => versions().every((v) => v === 2), 10_000);
  t.same(
    fleet.replicas.map((r) => r.status().scenario),
    ['failing', 'failing', 'failing'],
    'every replica runs it',
  );
  t.equal((await search(fleet.replicas[2]!.url, 1)).code, 'INTERNAL_ERROR', 'and the third replica applies it');

  const bad = await request(`${fleet.replicas[0]!.adminUrl}/scenario`, {
    method: 'PUT',
    body: 'scenario: bad\nrules:\n  - id: x\n    error: NOT_A_CODE\n',
    headers: { 'content-type': 'application/yaml' },
  });
  t.equal(bad.status, 422, 'the first replica refuses a bad scenario');
  const redis = new Redis(fleet.redis.url);
  t.teardown(() => redis.quit());
  t.equal(await redis.hget('aap-chaos:scenario', 'version'), '2', 'nothing was published');
  // A later good publication still arrives in order: the bad one left no gap behind it.
  const again = await request(`${fleet.replicas[0]!.adminUrl}/scenario`, {
    method: 'PUT',
    body: JSON.stringify(calm),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(again.status, 200);
  await waitFor(() => versions().every((v) => v === 3), 10_000);
  t.same(
    fleet.replicas.map((r) => r.status().scenario),
    ['calm', 'calm', 'calm'],
    'the bad scenario never ran anywhere',
  );
});

t.test('a replica joining later runs the fleet scenario, not its own', { skip: redisMissing() }, async (t) => {
  const fleet = await startFleet(t, 1, failing);
  const late = await fleet.add(calm, 'late');
  t.equal(late.status().scenario, 'failing', 'the published scenario wins over the joining replica');
  t.equal(late.status().state.scenario_version, 1);
  t.equal(late.status().state.replica, 'late');
});
