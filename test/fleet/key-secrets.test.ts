// A rule keyed by a header (`key: header:x-api-key`) counts each buyer apart in Redis, but the
// header's value, often a credential, never becomes part of a Redis key name (SCAN, MONITOR and
// RDB files show key names): the name carries an HMAC of it, keyed with the fleet's secret, so
// one buyer is still one key on every replica.
import t from 'tap';
import { Redis } from 'ioredis';
import { redisMissing } from '../helpers/debian-services.js';
import { search, startFleet } from '../helpers/fleet.js';

const SECRET = 'sk-live-7f3a9c2e41d8b6';
const scenario = `scenario: keyed
rules:
  - id: per-key-limit
    match: { skill: inventory.search }
    key: header:x-api-key
    rate_limit: { limit: 2, window_ms: 60000 }
`;

t.test('no Redis key name holds a header value; the limit is still per buyer across replicas', { skip: redisMissing() }, async (t) => {
  const fleet = await startFleet(t, 2, scenario);
  const [a, b] = fleet.replicas;
  const key = { 'x-api-key': SECRET };
  t.equal((await search(a!.url, 1, key)).code, undefined);
  t.equal((await search(b!.url, 2, key)).code, undefined);
  t.equal((await search(a!.url, 3, key)).code, 'RATE_LIMITED', 'the third search of the same key is limited, whichever replica it reaches');
  t.equal((await search(b!.url, 4, { 'x-api-key': 'another-buyer' })).code, undefined, 'another key is counted apart');

  // What `redis-cli --scan` lists: every key name in the store.
  const redis = new Redis(fleet.redis.url);
  t.teardown(() => redis.disconnect());
  const names: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'COUNT', 1000);
    names.push(...found);
    cursor = next;
  } while (cursor !== '0');
  t.ok(
    names.some((n) => n.includes('per-key-limit')),
    `the rule keeps its state in Redis (${names.length} keys)`,
  );
  t.same(
    names.filter((n) => n.includes(SECRET) || n.includes('another-buyer')),
    [],
    'no key name holds a header value',
  );
});
