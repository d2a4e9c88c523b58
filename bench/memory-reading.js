/** What a bench child answers to `{ type: 'memory' }` (bench/run.js, bench/rss.js). */
import { getHeapSpaceStatistics } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long the pages a collection freed are given to leave the process before RSS is read. */
const SETTLE_MS = 500;

/**
 * process.memoryUsage() after a collection (when --expose-gc is on), so that a reading shows what
 * is kept, not garbage not yet swept. A "last-resort" collection, as the soak takes it: it also
 * hands back the heap V8 holds in reserve, which Node 22 and 24 keep after an ordinary one (a
 * young generation grown under load: 90 MB of RSS "growth" over 200,000 requests with the heap in
 * use flat, in a Node 24 run); Node 20 ignores the option. The pages the collection frees are handed back to the
 * system in the background: read at once, RSS still counts 5 to 20 MB of them (`immediate`, kept
 * to show it), so `memory` is read once they have gone. V8's heap spaces say which part of the
 * heap holds what heapTotal counts.
 */
export async function memoryReading() {
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const immediate = process.memoryUsage();
  await sleep(SETTLE_MS);
  const heapSpaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  return { type: 'memory', memory: process.memoryUsage(), immediate, heapSpaces };
}
