/**
 * ULIDs for error ids and journal lines, from a pooled random source. The library's default
 * source asks the crypto module for one byte at a time (16 calls per id), which showed up as
 * most of the injected-error path's cost; one 4 KiB fill serves 256 ids.
 */
import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

const pool = Buffer.alloc(4096);
let next = pool.length;

/** A uniform number in [0, 1) with 8 bits of entropy: ulid maps each call to one of 32 symbols. */
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** A ULID whose time part is `time` (default now). */
export function newUlid(time: number = Date.now()): string {
  return ulid(time, pooledRandom);
}

/** Crockford's base 32, as ULIDs write it. */
const SYMBOLS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The symbols of a journal id's random part that hold its arrival number: 35 bits. */
const ARRIVAL_SYMBOLS = 7;
const ARRIVAL_NUMBERS = 32 ** ARRIVAL_SYMBOLS;
/** The time part of a ULID: 10 symbols. */
const TIME_SYMBOLS = 10;
let arrivals = 0;

/** The next request's arrival number: one more than the last one of this process (wrapping after 34 billion). */
export function nextArrival(): number {
  arrivals = (arrivals + 1) % ARRIVAL_NUMBERS;
  return arrivals;
}

/**
 * A journal line's id: a ULID of the request's start whose random part begins with the request's
 * arrival number, so that the ids of one process's requests that started in the same millisecond
 * sort in the order they arrived. The report reads a buyer's requests in (start ms, id) order and
 * takes the one after a reply as the answer to it; with a random part alone, a prompt answer to a
 * fast reply sorted before that reply half the time. The other 45 bits stay random, so ids of
 * replicas that share a millisecond and an arrival number still differ.
 */
export function arrivalUlid(time: number, arrival: number): string {
  let number = '';
  for (let i = 0, n = arrival; i < ARRIVAL_SYMBOLS; i++, n = Math.floor(n / 32)) number = SYMBOLS[n % 32] + number;
  const id = ulid(time, pooledRandom);
  return id.slice(0, TIME_SYMBOLS) + number + id.slice(TIME_SYMBOLS + ARRIVAL_SYMBOLS);
}
