// error: the typed AAP envelope, decided without sockets and sent through the proxy.
import t from 'tap';
import { effectsOf } from '../../src/effects/registry.js';
import { harness } from '../helpers/chaos-harness.js';
import { envelopeProblems } from '../helpers/envelope-schemas.js';
import { effectContext, loadedRule } from '../helpers/effect-context.js';
import { normaliseErrorForm } from '../../src/scenario/effect-kinds.js';

t.test('pure: the short form is normalised once as effects are built, and both forms decide the same envelope', async (t) => {
  const flat = loadedRule('rules:\n  - id: a\n    error: RATE_LIMITED\n    retry_after_ms: 2000\n    message: slow down\n');
  t.same([flat.error, flat.retry_after_ms], ['RATE_LIMITED', 2000], 'the loaded document stays as written');
  t.match(normaliseErrorForm(flat), { error: { code: 'RATE_LIMITED', retry_after_ms: 2000, message: 'slow down' } }, 'one shape for the effect');
  t.notOk('retry_after_ms' in normaliseErrorForm(flat) || 'message' in normaliseErrorForm(flat), 'its sibling keys moved into the error object');
  const object = loadedRule('rules:\n  - id: a\n    error: { code: RATE_LIMITED, retry_after_ms: 2000, message: slow down }\n');
  t.equal(normaliseErrorForm(object), object, 'the object form is already that shape');
  const [a, b] = [flat, object].map((rule) => effectsOf(rule).terminal!.decide(effectContext({ profile: '1.3' }))!);
  t.equal(a.explain, 'RATE_LIMITED (retryable), retry after 2000 ms');
  t.equal(a.explain, b.explain);
  t.equal(a.action.type, 'reply');
  if (a.action.type !== 'reply' || b.action.type !== 'reply') return;
  t.equal(a.action.status, 200);
  t.match(a.action.envelope, { error: { code: -32002, data: { code: 'RATE_LIMITED', message: 'slow down', details: { retry_after_ms: 2000 } } } });
  t.same(envelopeProblems('1.3', JSON.parse(a.action.body.toString())), []);
  t.match(
    b.action.envelope,
    a.action.envelope && { error: { code: -32002, data: { code: 'RATE_LIMITED', message: 'slow down', details: { retry_after_ms: 2000 } } } },
    'the object form decides the same',
  );
});

t.test('error: the typed AAP envelope of the active profile, with overrides', async (t) => {
  for (const profile of ['1.3', '2.0'] as const) {
    const h = await harness(
      t,
      `rules:\n  - id: boom\n    error: VEHICLE_UNAVAILABLE\n    retryable: true\n    message: Sold an hour ago\n    details: { vin: V1 }\n`,
      { proxy: { profile } },
    );
    const reply = await h.call('inventory.vehicle', { vin: 'V1' }, { id: 'abc' });
    const env = h.json(reply);
    t.equal(reply.status, 200, 'JSON-RPC errors travel on HTTP 200');
    t.same(envelopeProblems(profile, env), [], `valid ${profile} envelope`);
    t.equal(env.id, 'abc');
    const payload = profile === '1.3' ? env.error.data : env.error.data.find((d: any) => d.type === 'aap.error');
    t.match(payload, { code: 'VEHICLE_UNAVAILABLE', retryable: true, message: 'Sold an hour ago', details: { vin: 'V1' } });
    t.equal(h.upstream.seen.filter((s) => s.url === '/a2a').length, 0, 'the dealer was never called');
    t.match(h.journal[0], { source: 'injected', fired: ['boom'], error_code: 'VEHICLE_UNAVAILABLE', rpc_code: -32000, retryable: true });
  }
});

t.test('error object form and retry_after_ms', async (t) => {
  const h = await harness(t, `rules:\n  - id: slow-down\n    error: { code: RATE_LIMITED, retry_after_ms: 1234 }\n`);
  const env = h.json(await h.call('inventory.search'));
  t.equal(env.error.code, -32002);
  t.equal(env.error.data.details.retry_after_ms, 1234);
  t.equal(h.journal[0]!.retry_after_ms, 1234);
});
