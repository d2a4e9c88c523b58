// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// bandwidth: a slow body, planned without sockets and through the proxy.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { planOf, throughTransform } from '../helpers/effect-context.js';

t.test('pure: the slower cap wins, on every body, bytes unchanged', async (t) => {
  const { plan, sentences } = planOf(['{ id: a, bandwidth: { bytes_per_s: 100000 } }', '{ id: b, bandwidth: { bytes_per_s: 40000 } }']);
  t.same(sentences, ['bandwidth 100000 bytes/s', 'bandwidth 40000 bytes/s']);
  t.equal(plan.stream.length, 1);
  t.equal((plan.stream[0] as unknown as { bytesPerSecond: number }).bytesPerSecond, 40000);
  t.ok(plan.stream[0]!.onWholeBody && !plan.stream[0]!.changesLength);
  const body = 'x'.repeat(4000);
  const started = performance.now();
  const out = await throughTransform([body], plan.stream[0]!.transform({ profile: '1.3', id: 1 }));
  t.equal(out.text, body);
  t.ok(performance.now() - started >= 80, 'about 0.1 s for 4000 bytes at 40000 bytes/s');
});

t.test('bandwidth: a slow body', async (t) => {
  const h = await harness(t, `rules:\n  - { id: thin, bandwidth: { bytes_per_s: 2000 } }\n`);
  const started = performance.now();
  const reply = await h.call('inventory.search');
  const ms = performance.now() - started;
  t.ok(JSON.parse(reply.body.toString()).result, 'the body arrives whole');
  t.ok(ms >= (reply.body.length / 2000) * 1000 * 0.8, `${reply.body.length} bytes took ${Math.round(ms)} ms`);
});
