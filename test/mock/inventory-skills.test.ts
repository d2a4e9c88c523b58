import t from 'tap';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, BAD_REQUEST_TYPE } from '../../src/protocol/codes.js';
import type { Vehicle } from '../../src/mock/index.js';
import { createBuyer, sendSkill, type Buyer, type SkillReply } from '../helpers/sdk-buyer.js';
import { aapError, expectAapError, payload, startDealer } from './dealer-fixture.js';

const ext = AAP_EXTENSION_URI_1_3;

t.test('1.3 profile, through the proxy', async (t) => {
  const { url, dealer } = await startDealer(t);
  const buyer: Buyer = await createBuyer(url);
  const call = (skill: string, data: Record<string, unknown> = {}): Promise<SkillReply> => sendSkill(buyer, skill, data, { extensionUri: ext });

  t.test('dealer.information lists rooftops with phones, hours and timezone', async (t) => {
    const reply = await call('dealer.information');
    t.ok(reply.ok && typeof reply.messageId === 'string' && reply.contextId.length > 0, 'fresh messageId and a contextId');
    const info = payload<{ name: string; rooftops: { name: string; phones: unknown[]; schedules: unknown[]; timezone: string }[] }>(
      t,
      reply,
      'dealer.information',
    );
    t.equal(info.name, 'Mock Motors');
    t.equal(info.rooftops.length, 2);
    t.ok(info.rooftops.every((r) => r.phones.length > 0 && r.schedules.length > 0 && r.timezone === 'America/Chicago'));
  });

  t.test('inventory.search pages through every listed vehicle with total, skip and limit', async (t) => {
    const first = payload<{ total: number; skip: number; limit: number; vehicles: Vehicle[] }>(t, await call('inventory.search'), 'inventory.search');
    t.equal(first.total, dealer.inventory.vehicles.length);
    t.same([first.skip, first.limit, first.vehicles.length], [0, 20, 20]);
    const v = first.vehicles[0]!;
    for (const field of ['status', 'price', 'list_price', 'msrp', 'fees', 'updated_at', 'vin', 'stock'] as const)
      t.not(v[field], undefined, `vehicles carry ${field}`);
    const last = payload<{ vehicles: Vehicle[] }>(
      t,
      await call('inventory.search', { pagination: { skip: first.total - 3, limit: 1000 } }),
      'inventory.search',
    );
    t.equal(last.vehicles.length, 3);
  });

  t.test('inventory.search applies filters and sorts', async (t) => {
    const result = payload<{ total: number; vehicles: Vehicle[] }>(
      t,
      await call('inventory.search', {
        filters: { make: ['honda', 'Toyota'], condition: ['used', 'cpo'], price_max: 30000, year_min: 2018 },
        sort: { field: 'price', order: 'desc' },
        pagination: { limit: 1000 },
      }),
      'inventory.search',
    );
    t.ok(result.total > 0, 'some vehicles match');
    t.ok(result.vehicles.every((v) => ['Honda', 'Toyota'].includes(v.make) && v.condition !== 'new' && v.price <= 30000 && v.year >= 2018));
    const prices = result.vehicles.map((v) => v.price);
    t.same(
      prices,
      [...prices].sort((a, b) => b - a),
      'sorted by price, descending',
    );
    const ev = payload<{ vehicles: Vehicle[] }>(
      t,
      await call('inventory.search', { filters: { fuel: ['electric'], dc_fast_charge: true, query: 'tesla' } }),
      'inventory.search',
    );
    t.ok(ev.vehicles.length > 0 && ev.vehicles.every((v) => v.make === 'Tesla' && v.electric_range_mi! > 0));
    const byVin = payload<{ total: number }>(t, await call('inventory.search', { filters: { vin: dealer.inventory.firstSold().vin } }), 'inventory.search');
    t.equal(byVin.total, 0, 'sold vehicles never appear in search');
  });

  t.test('inventory.facets counts what the filters leave', async (t) => {
    const all = payload<{ makes: { value: string; count: number }[]; statuses: { value: string }[]; price_range: { min: number; max: number } }>(
      t,
      await call('inventory.facets'),
      'inventory.facets',
    );
    t.equal(
      all.makes.reduce((n, m) => n + m.count, 0),
      dealer.inventory.vehicles.length,
    );
    t.same(all.statuses.map((s) => s.value).sort(), ['available', 'intransit', 'pending']);
    t.ok(all.price_range.min < all.price_range.max);
    const subaru = payload<{ makes: { value: string; count: number }[] }>(
      t,
      await call('inventory.facets', { filters: { make: ['Subaru'] } }),
      'inventory.facets',
    );
    t.same(
      subaru.makes.map((m) => m.value),
      ['Subaru'],
    );
  });

  t.test('inventory.vehicle finds a listing by vin, stock or vehicle_id', async (t) => {
    const known = dealer.inventory.firstAvailable();
    for (const key of [{ vin: known.vin }, { stock: known.stock }, { vehicle_id: known.vehicle_id }]) {
      const v = payload<Vehicle>(t, await call('inventory.vehicle', key), 'inventory.vehicle');
      t.equal(v.vin, known.vin, `by ${Object.keys(key)[0]}`);
      t.equal(v.status, 'available');
    }
  });

  t.test('inventory.vehicle answers VEHICLE_NOT_FOUND for an unknown VIN', async (t) => {
    const reply = await call('inventory.vehicle', { vin: '1HGCM82633A00000X' });
    expectAapError(t, reply, -32000, 'VEHICLE_NOT_FOUND');
  });

  t.test('inventory.vehicle answers VEHICLE_UNAVAILABLE for a sold vehicle', async (t) => {
    const reply = await call('inventory.vehicle', { vin: dealer.inventory.firstSold().vin });
    t.match(expectAapError(t, reply, -32000, 'VEHICLE_UNAVAILABLE'), { retryable: false, details: { status: 'sold' } });
  });

  t.test('SCHEMA_VALIDATION_FAILED lists every problem at once (-32602, bare aap.error)', async (t) => {
    const reply = await call('inventory.search', { filters: { year_min: 'new', colour: ['red'] }, pagination: { limit: 5000 }, sort: { field: 'color' } });
    const error = expectAapError(t, reply, -32602, 'SCHEMA_VALIDATION_FAILED');
    t.notOk(Array.isArray(reply.ok ? null : reply.data), '1.3 carries the bare aap.error object');
    const locations = (error.details as { errors: { instanceLocation: string }[] }).errors.map((e) => e.instanceLocation).sort();
    t.same(locations, ['/filters/colour', '/filters/year_min', '/pagination/limit', '/sort/field']);
  });

  t.test('inventory.vehicle without any identifier fails validation', async (t) => {
    const error = aapError(await call('inventory.vehicle', {}));
    t.match(error, { code: 'SCHEMA_VALIDATION_FAILED', details: { errors: [{ keyword: 'anyOf' }] } });
  });

  t.test('an unknown skill is UNSUPPORTED_SKILL on -32601', async (t) => {
    const reply = await call('inventory.teleport', {});
    expectAapError(t, reply, -32601, 'UNSUPPORTED_SKILL');
  });
});

t.test('2.0 profile, through the proxy', async (t) => {
  const { url, dealer } = await startDealer(t, { profile: '2.0' });
  const buyer = await createBuyer(url);
  const call = (skill: string, data: Record<string, unknown> = {}): Promise<SkillReply> =>
    sendSkill(buyer, skill, data, { extensionUri: AAP_EXTENSION_URI_2_0_DRAFT });

  t.test('skills succeed when the extension is activated', async (t) => {
    const v = payload<Vehicle>(t, await call('inventory.vehicle', { stock: dealer.inventory.firstAvailable().stock }), 'inventory.vehicle');
    t.equal(v.stock, dealer.inventory.firstAvailable().stock);
  });

  t.test('validation errors lead with ErrorInfo, then BadRequest, then the typed payload', async (t) => {
    const reply = await call('inventory.search', { filters: { year_min: 'x', price_max: -1 } });
    if (reply.ok) return t.fail('expected an error');
    t.equal(reply.envelopeCode, -32602);
    const data = reply.data as Record<string, unknown>[];
    t.match(data[0], { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SCHEMA_VALIDATION_FAILED', domain: 'autoagentprotocol.org' });
    t.equal(data[1]!['@type'], BAD_REQUEST_TYPE);
    t.equal((data[1]!.fieldViolations as unknown[]).length, 2, 'one violation per problem');
    t.equal((aapError(reply).details as { errors: unknown[] }).errors.length, 2);
  });

  t.test('an unknown skill is UNSUPPORTED_SKILL on -32004 with the AAP payload', async (t) => {
    const reply = await call('inventory.teleport', {});
    expectAapError(t, reply, -32004, 'UNSUPPORTED_SKILL');
  });

  t.test('sold vehicles are VEHICLE_UNAVAILABLE in the array envelope', async (t) => {
    const reply = await call('inventory.vehicle', { vin: dealer.inventory.firstSold().vin });
    t.ok(!reply.ok && Array.isArray(reply.data));
    t.equal(aapError(reply).code, 'VEHICLE_UNAVAILABLE');
  });
});
