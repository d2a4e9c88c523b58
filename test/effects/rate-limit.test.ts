// rate_limit: a sliding window per rule and key, decided without sockets and through the proxy.
import t from 'tap';
import { createRateLimitEffect } from '../../src/effects/rate-limit.js';
import { harness } from '../helpers/chaos-harness.js';
import { effectContext, loadedRule } from '../helpers/effect-context.js';

t.test('pure: the window counts admitted requests only, and the hint is the true wait', async (t) => {
  const effect = createRateLimitEffect(loadedRule('rules:\n  - { id: r, rate_limit: { limit: 2, window_ms: 1000 } }\n'));
  const keyState = {};
  const at = (now: number) => effect.decide(effectContext({ now, keyState }));
  t.equal(at(0), undefined);
  t.equal(at(100), undefined);
  const refused = at(400);
  t.equal(refused?.explain, 'RATE_LIMITED, retry after 600 ms');
  t.match(refused?.action, { envelope: { error: { data: { code: 'RATE_LIMITED', details: { retry_after_ms: 600 } } } } });
  t.ok(at(500), 'refused requests do not count, and the window has not moved yet');
  t.equal(at(1000), undefined, 'the oldest admitted request left the window');
});

t.test('rate_limit: the retry hint is the true wait, and a buyer that waits exactly that long succeeds', async (t) => {
  // The window is long enough for three calls on a busy machine (400 ms was not: the third call
  // came after the first had left it, and was admitted).
  const h = await harness(t, `rules:\n  - id: throttle\n    rate_limit: { limit: 2, window_ms: 2000 }\n`);
  t.ok(h.json(await h.call('inventory.search')).result);
  t.ok(h.json(await h.call('inventory.search')).result);
  const limited = h.json(await h.call('inventory.search'));
  t.equal(limited.error.data.code, 'RATE_LIMITED');
  const wait = limited.error.data.details.retry_after_ms;
  t.ok(wait > 0 && wait <= 2000, `retry_after_ms ${wait} is within the window`);
  await new Promise((r) => setTimeout(r, wait));
  t.ok(h.json(await h.call('inventory.search')).result, 'waiting exactly retry_after_ms is enough');
});
