/** What a bench child answers to `{ type: 'memory' }` (bench/run.js, bench/rss.js). */
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * process.memoryUsage() after a collection (when --expose-gc is on), so that a reading shows what
 * is kept, not garbage not yet swept; and V8's heap spaces, which say which part of the heap holds
 * what heapTotal counts.
 */
export function memoryReading() {
  globalThis.gc?.();
  const heapSpaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  return { type: 'memory', memory: process.memoryUsage(), heapSpaces };
}
