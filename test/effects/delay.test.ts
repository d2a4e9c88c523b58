// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// delay: latency from the seeded generator, planned without sockets and through the proxy.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { effectContext, planOf, seeded } from '../helpers/effect-context.js';

t.test('pure: fixed adds exactly ms; jitter repeats with the seed and never goes below zero', async (t) => {
  t.equal(planOf(['{ id: d, delay: { ms: 120, distribution: fixed } }']).plan.delayMs, 120);
  t.equal(planOf(['{ id: a, delay: { ms: 30, distribution: fixed } }', '{ id: b, delay: { ms: 40, distribution: fixed } }']).plan.delayMs, 70, 'delays add up');
  const draws = (seed: number) =>
    Array.from({ length: 20 }, () => planOf(['{ id: j, delay: { ms: 5, jitter_ms: 50, distribution: normal } }'], effectContext({ random: seeded(seed) })));
  const first = draws(3).map((p) => p.plan.delayMs);
  t.same(
    draws(3).map((p) => p.plan.delayMs),
    first,
    'the same seed draws the same delays',
  );
  t.ok(
    first.every((ms) => ms >= 0),
    'never below zero',
  );
  t.match(draws(3)[0]!.sentences[0], /^delay \d+ ms$/);
});

t.test('delay: fixed latency before the reply', async (t) => {
  const h = await harness(t, `rules:\n  - { id: slow, delay: { ms: 120, distribution: fixed } }\n`);
  const started = performance.now();
  const env = h.json(await h.call('inventory.search'));
  t.ok(env.result);
  t.ok(performance.now() - started >= 115, 'at least the delay');
  t.same(h.journal[0]!.effects, ['delay 120 ms']);
});
