// Connecting to Redis at start is bounded by the connect timeout (3 s), not by one call's 250 ms:
// a process whose event loop is busy when the first PING's answer arrives (loading its modules on
// a loaded machine) runs its timers before it reads the socket, and a 250 ms bound on that PING
// failed the start with "cannot reach Redis (Command timed out)" while Redis had answered.
import t from 'tap';
import { RedisStateStore } from '../../src/state/redis-store.js';
import { redisMissing } from '../helpers/debian-services.js';
import { startRedis } from '../helpers/redis-server.js';

/** Holds the event loop in slices of `sliceMs`, with one turn of the loop between them, for `totalMs`. */
function busyLoop(sliceMs: number, totalMs: number): Promise<void> {
  const until = Date.now() + totalMs;
  return new Promise((resolve) => {
    const slice = () => {
      const end = Date.now() + sliceMs;
      while (Date.now() < end) {
        // Busy on purpose: a process compiling modules or collecting garbage.
      }
      if (Date.now() < until) setImmediate(slice);
      else resolve();
    };
    setImmediate(slice);
  });
}

t.test('the first PING waits out a busy event loop: connected, then calls keep their 250 ms bound', { skip: redisMissing() }, async (t) => {
  const redis = await startRedis(t);
  t.teardown(() => redis.close());
  for (let attempt = 0; attempt < 3; attempt++) {
    const connecting = RedisStateStore.connect(redis.url);
    const busy = busyLoop(400, 2_000);
    const store = await connecting.catch((err: Error) => err);
    await busy;
    t.notOk(store instanceof Error, `attempt ${attempt + 1}: connected (${store instanceof Error ? store.message : 'ok'})`);
    if (!(store instanceof Error)) await store.close();
  }
});
