// Journal ids: ULIDs of the request's start whose random part begins with its arrival number.
import t from 'tap';
import { decodeTime } from 'ulid';
import { arrivalUlid, newUlid, nextArrival } from '../../src/protocol/ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const MS = Date.UTC(2026, 11, 5, 8, 0, 0, 123);

t.test('an arrival id is a ULID of its time', async (t) => {
  const id = arrivalUlid(MS, 12345);
  t.match(id, ULID);
  t.equal(decodeTime(id), MS);
  t.equal(id.slice(0, 10), newUlid(MS).slice(0, 10), 'the same time part as any ULID of that millisecond');
});

t.test('within a millisecond, ids sort by arrival, across every symbol boundary', async (t) => {
  const arrivals = [0, 1, 31, 32, 33, 1023, 1024, 32 ** 6 - 1, 32 ** 6, 32 ** 7 - 1];
  const ids = arrivals.map((a) => arrivalUlid(MS, a));
  t.same([...ids].sort(), ids);
  t.ok(arrivalUlid(MS + 1, 0) > arrivalUlid(MS, 32 ** 7 - 1), 'a later millisecond sorts after, whatever the arrival');
});

t.test('the same millisecond and arrival still give different ids (replicas)', async (t) => {
  const ids = new Set(Array.from({ length: 1000 }, () => arrivalUlid(MS, 7)));
  t.equal(ids.size, 1000);
});

t.test('arrival numbers go up by one', async (t) => {
  const a = nextArrival();
  t.equal(nextArrival(), a + 1);
});
