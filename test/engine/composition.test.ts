// How rules combine around effects, through real sockets: modifiers add up, the first terminal
// effect ends evaluation, max_active_faults, dry run, header-forced faults, odd requests.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { request } from '../helpers/servers.js';

t.test('composition: modifiers add up; the first terminal effect ends evaluation', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - { id: d1, delay: { ms: 30, distribution: fixed } }\n  - { id: d2, delay: { ms: 40, distribution: fixed } }\n  - { id: first, error: INTERNAL_ERROR }\n  - { id: never, error: RATE_LIMITED }\n`,
  );
  const started = performance.now();
  const env = h.json(await h.call('inventory.search'));
  t.ok(performance.now() - started >= 65, 'both delays applied');
  t.equal(env.error.data.code, 'INTERNAL_ERROR');
  t.same(h.journal[0]!.fired, ['d1', 'd2', 'first']);
  t.same(h.journal[0]!.matched, ['d1', 'd2', 'first'], 'evaluation stopped at the terminal effect');
});

t.test('max_active_faults caps concurrent injected faults', async (t) => {
  const h = await harness(t, `max_active_faults: 1\nrules:\n  - { id: slow, delay: { ms: 200, distribution: fixed } }\n`);
  const [a, b] = await Promise.all([h.call('inventory.search'), h.call('inventory.search')]);
  t.ok(h.json(a).result && h.json(b).result);
  const fired = h.journal.filter((e) => e.fired.includes('slow')).length;
  t.equal(fired, 1, 'only one of two concurrent requests got the fault');
  t.ok(
    h.journal.some((e) => e.effects.some((s) => s.includes('max_active_faults'))),
    'the skip is journaled',
  );
});

t.test('--dry-run decides and journals but changes nothing', async (t) => {
  const h = await harness(t, `rules:\n  - { id: boom, error: INTERNAL_ERROR }\n`, { proxy: { dryRun: true } });
  const env = h.json(await h.call('inventory.search'));
  t.ok(env.result, 'the dealer answered');
  t.match(h.journal[0], { dry_run: true, fired: ['boom'], source: 'dealer' });
});

t.test('--allow-header-faults: x-aap-chaos forces a rule or an AAP code; off by default', async (t) => {
  const yaml = `rules:\n  - { id: gone, match: { skill: nothing.here }, error: VEHICLE_UNAVAILABLE }\n`;
  const on = await harness(t, yaml, { engine: { allowHeaderFaults: true } });
  t.equal(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'gone' } })).error.data.code, 'VEHICLE_UNAVAILABLE');
  t.equal(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'IDEMPOTENCY_CONFLICT' } })).error.data.code, 'IDEMPOTENCY_CONFLICT');
  t.ok(on.json(await on.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'no-such-thing' } })).result, 'an unknown value forces nothing');
  const off = await harness(t, yaml);
  t.ok(off.json(await off.call('inventory.search', {}, { headers: { 'x-aap-chaos': 'gone' } })).result, 'ignored unless allowed');
});

t.test('the proxy never throws on odd requests under rules that inspect bodies', async (t) => {
  const h = await harness(
    t,
    `rules:\n  - id: b\n    match: { body: [{ pointer: /params/message/parts/0/data/vin, exists: true }] }\n    error: VEHICLE_NOT_FOUND\n`,
  );
  for (const body of ['nope', '[1,2]', '{}', '']) {
    const reply = await request(h.proxy.url + '/a2a', { method: 'POST', body });
    t.equal(reply.status, 200, `forwarded ${JSON.stringify(body)}`);
  }
});
