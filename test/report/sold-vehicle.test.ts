import t from 'tap';
import { grade, JournalBuilder, reply } from './journal-builder.js';

const vehicles = () => new JournalBuilder({ skill: 'inventory.vehicle', request_hash: 'hash-vin-1', vehicle: 'VIN1' });

t.test('asking again up to the allowed number of times passes', async (t) => {
  const j = vehicles();
  const gone = j.at(0, reply.refused('VEHICLE_UNAVAILABLE'));
  j.at(1000, reply.refused('VEHICLE_UNAVAILABLE'));
  j.at(2000, reply.refused('VEHICLE_UNAVAILABLE'));
  j.at(3000, { vehicle: 'VIN2', request_hash: 'hash-vin-2' });
  const result = grade(j.entries, 'sold-vehicle');
  t.equal(result.verdict, 'PASS');
  t.same(result.evidence, [gone]);
});

t.test('a loop on a gone vehicle fails; the bound is configurable', async (t) => {
  const j = vehicles();
  const gone = j.at(0, reply.refused('VEHICLE_NOT_FOUND'));
  const repeats = [j.at(10, reply.refused('VEHICLE_NOT_FOUND')), j.at(20, reply.refused('VEHICLE_NOT_FOUND')), j.at(30, reply.reset())];
  const result = grade(j.entries, 'sold-vehicle');
  t.equal(result.verdict, 'FAIL');
  t.same(result.evidence, [gone, ...repeats]);
  t.match(result.explanation, /vehicle VIN1 3 more times after VEHICLE_NOT_FOUND \(allowed 2\)/);
  t.equal(grade(j.entries, 'sold-vehicle', { thresholds: { same_vehicle_max_repeats: 3 } }).verdict, 'PASS');
});

t.test('a vehicle the dealer serves again is no longer counted', async (t) => {
  const j = vehicles();
  j.at(0, reply.refused('VEHICLE_UNAVAILABLE'));
  j.at(1000); // it came back
  j.at(2000);
  j.at(3000);
  j.at(4000);
  t.equal(grade(j.entries, 'sold-vehicle').verdict, 'PASS');
});

t.test('not exercised when no vehicle was reported gone', async (t) => {
  const j = vehicles();
  j.at(0);
  j.at(10, { ...reply.refused('VEHICLE_UNAVAILABLE'), status: 0 });
  j.at(20);
  const result = grade(j.entries, 'sold-vehicle');
  t.equal(result.verdict, 'NOT EXERCISED');
  t.same(result.evidence, []);
});
