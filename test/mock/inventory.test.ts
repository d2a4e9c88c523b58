import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AAP_EXTENSION_URI_1_3 } from '../../src/protocol/codes.js';
import {
  Inventory,
  LISTED_VEHICLE_COUNT,
  SOLD_VEHICLE_COUNT,
  generateInventory,
  loadInventoryFile,
  parseInventory,
  type Vehicle,
} from '../../src/mock/index.js';
import { createBuyer, sendSkill } from '../helpers/sdk-buyer.js';
import { aapError, payload, startDealer } from './dealer-fixture.js';

t.test('the generated inventory is deterministic per seed', async (t) => {
  t.same(generateInventory(7), generateInventory(7), 'same seed, same data');
  t.not(generateInventory(7).vehicles[0]!.vin, generateInventory(8).vehicles[0]!.vin, 'another seed, other data');
});

t.test('the generated inventory looks like a real dealer lot', async (t) => {
  const { vehicles, sold } = generateInventory();
  t.equal(vehicles.length, LISTED_VEHICLE_COUNT);
  t.equal(sold.length, SOLD_VEHICLE_COUNT);
  const all = [...vehicles, ...sold];
  t.equal(new Set(all.map((v) => v.vin)).size, all.length, 'VINs are unique');
  t.equal(new Set(all.map((v) => v.stock)).size, all.length, 'stock numbers are unique');
  t.ok(
    all.every((v) => /^[A-HJ-NPR-Z0-9]{17}$/.test(v.vin)),
    'VINs are 17 legal characters',
  );
  t.ok(new Set(vehicles.map((v) => v.make)).size >= 5, 'several makes');
  t.same(new Set(vehicles.map((v) => v.condition)), new Set(['new', 'used', 'cpo']));
  t.same(new Set(vehicles.map((v) => v.status)), new Set(['available', 'intransit', 'pending']));
  t.equal(new Set(vehicles.map((v) => v.rooftop)).size, 2, 'two rooftops');
  t.ok(
    all.every((v) => Number.isInteger(v.price) && v.price >= 3_990 && v.price <= 80_000),
    'integer USD prices in a realistic band',
  );
  t.ok(
    vehicles.filter((v) => v.condition === 'new').every((v) => v.mileage! < 100 && v.price <= v.msrp!),
    'new cars: delivery miles, at or under MSRP',
  );
  t.ok(
    vehicles.filter((v) => v.condition !== 'new').every((v) => v.mileage! >= 2_000),
    'used cars have real mileage',
  );
  t.ok(
    all.every((v) => !Number.isNaN(Date.parse(v.updated_at))),
    'updated_at is a timestamp',
  );
});

t.test('lookups tell listed, sold and unknown vehicles apart', async (t) => {
  const inventory = Inventory.fromSeed();
  const available = inventory.firstAvailable();
  t.equal(available.status, 'available');
  t.equal(inventory.lookup({ vin: available.vin.toLowerCase() }).found, 'listed', 'VINs match case-insensitively');
  t.equal(inventory.lookup({ stock: inventory.firstSold().stock }).found, 'sold');
  t.equal(inventory.lookup({ vin: available.vin, stock: 'other' }).found, 'none', 'all given identifiers must match');
  t.equal(inventory.lookup({}).found, 'none');
});

function lot(): { vehicles: Vehicle[]; sold: Vehicle[] } {
  const { vehicles, sold } = generateInventory(3);
  return { vehicles: vehicles.slice(0, 3), sold: sold.slice(0, 1) };
}

t.test('an inventory file is served instead of the generated lot', async (t) => {
  const dir = t.testdir();
  const file = join(dir, 'lot.json');
  const data = lot();
  writeFileSync(file, JSON.stringify(data));
  const { url } = await startDealer(t, { inventoryFile: file });
  const buyer = await createBuyer(url);
  const search = payload<{ total: number }>(t, await sendSkill(buyer, 'inventory.search', {}, { extensionUri: AAP_EXTENSION_URI_1_3 }), 'inventory.search');
  t.equal(search.total, 3);
  const soldReply = await sendSkill(buyer, 'inventory.vehicle', { vin: data.sold[0]!.vin }, { extensionUri: AAP_EXTENSION_URI_1_3 });
  t.equal(aapError(soldReply).code, 'VEHICLE_UNAVAILABLE');
});

t.test('a bad inventory file is refused with the file name and every JSON path', async (t) => {
  const data = lot() as unknown as { vehicles: Record<string, unknown>[] };
  data.vehicles[0]!.price = 'cheap';
  delete data.vehicles[1]!.vin;
  data.vehicles[2]!.status = 'sold';
  const error = t.throws(() => parseInventory('lot.json', JSON.stringify(data))) as Error;
  t.match(error.message, /^Inventory file lot\.json is invalid \(3 problems\)/);
  t.match(error.message, '/vehicles/0/price: must be integer');
  t.match(error.message, '/vehicles/1/vin: is required');
  t.match(error.message, '/vehicles/2/status: must be one of: available, intransit, pending');
  t.notMatch(error.message, /\bat .+:\d+/, 'no stack in the message');
});

t.test('duplicate identifiers, bad JSON and missing files each get a clear error', async (t) => {
  const data = lot();
  data.sold[0]!.vin = data.vehicles[0]!.vin;
  t.throws(() => parseInventory('dup.json', JSON.stringify(data)), { message: /\/sold\/0\/vin: duplicates \/vehicles\/0\/vin/ });
  t.throws(() => parseInventory('broken.json', '{"vehicles": ['), { message: /^Inventory file broken\.json is not valid JSON: / });
  t.throws(() => loadInventoryFile('/nonexistent/lot.json'), { message: '--inventory: /nonexistent/lot.json: no such file' });
  t.throws(() => parseInventory('empty.json', '{}'), { message: /\/vehicles: is required/ });
  const badHours = {
    ...lot(),
    dealer: {
      name: 'X',
      rooftops: [{ name: 'Main', timezone: 'Mars/Olympus', schedules: [{ value: { monday: { open: '9am', close: '17:00' }, funday: null } }] }],
    },
  };
  const error = t.throws(() => parseInventory('hours.json', JSON.stringify(badHours))) as Error;
  t.match(error.message, 'hours.json is invalid (2 problems)');
  t.match(error.message, '/dealer/rooftops/0/schedules/0/value/monday/open: must match pattern');
  t.match(error.message, '/dealer/rooftops/0/schedules/0/value/funday: unknown property');
  t.throws(() => parseInventory('tz.json', JSON.stringify({ ...lot(), dealer: { name: 'X', rooftops: [{ name: 'Main', timezone: 'Mars/Olympus' }] } })), {
    message: "/dealer/rooftops/0/timezone: unknown timezone 'Mars/Olympus'",
  });
});
