/**
 * The one seeded generator (mulberry32) behind every random choice: the engine's probabilities,
 * jitter, distributions and shuffles, and the mock dealer's generated inventory. Same seed, same
 * sequence on every machine; Math.random would make runs unrepeatable.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** About `count` distinct items (never more), kept in the list's order. */
  sample<T>(items: readonly T[], count: number): T[] {
    return items.filter(() => this.next() < count / items.length).slice(0, count);
  }
}
