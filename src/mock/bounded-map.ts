/**
 * A Map that forgets its least recently used entries past a fixed size, so a long-running mock
 * (or a load test against it) cannot grow lead and booking state without limit.
 */
import { boundReached } from '../common/bound-counts.js';

export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert to mark as recently used: Map iterates in insertion order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
      boundReached('mock_store');
    }
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }
}
