// Two replicas pulling the lever at once (two guardrails breached on a busy fleet) must end up
// agreeing on who pulled it: the last pull stored. A replica whose read of the fleet's lever was
// still on its way when it pulled the lever itself must not let that older read undo its own pull.
import t from 'tap';
import { SafetyLever, type LeverState } from '../../src/staging/safety-lever.js';
import { FleetControl } from '../../src/state/fleet-control.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import { redisMissing } from '../helpers/debian-services.js';
import { startRedis } from '../helpers/redis-server.js';

const pulledOn = (replica: string, at: string): LeverState => ({ pulled: true, by: `guardrail g`, halted_by: 'guardrail g', at, replica });

t.test('a read of the lever sent before this replica pulled it does not undo the pull', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  t.teardown(() => redis.close());
  const stores = await Promise.all([RedisStateStore.connect(redis.url), RedisStateStore.connect(redis.url)]);
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  const [a, b] = stores.map((s) => new SafetyLever(() => {}, new FleetControl(s.connection()))) as [SafetyLever, SafetyLever];

  await a.move(pulledOn('a', '2026-12-05T00:00:00.000Z'));
  // B hears A's announcement and sends its read; before the answer comes, B's own guardrail pulls
  // the lever. On one connection the read goes first, so it answers with A's lever.
  const reading = b.refresh();
  await b.move(pulledOn('b', '2026-12-05T00:00:00.001Z'));
  await reading;
  t.equal(b.state.replica, 'b', 'B still says it pulled the lever, as the store now does');
  await a.refresh();
  t.equal(a.state.replica, 'b', 'A, hearing B, agrees');
});
