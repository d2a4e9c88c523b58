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
