/**
 * The buyer zoo's population: each member is one combination of how a buyer may handle AAP errors,
 * drawn so that every value of every dimension appears several times. A member's parameters are
 * all there is to it: test/buyer-zoo/buyer.ts behaves by them, test/buyer-zoo/oracle.ts derives from them what
 * each report check must say.
 */
import { SeededRandom } from '../../src/common/random.js';

/** How long it waits before retrying a retryable error that carries no hint it reads. */
export const RETRY = ['none', 'at-once', 'fixed', 'exponential', 'full-jitter', 'equal-jitter', 'capped'] as const;
/** Which retry hints it reads: `retry_after_ms`, only `retry_after_seconds`, or none. */
export const HINT = ['ms', 'seconds', 'ignore'] as const;
/** Where it looks for the AAP payload in `error.data`: by `@type` (readAapError), or the last entry. */
export const READING = ['type', 'position'] as const;
/** Whose `retryable` it follows: the value the dealer returned, or the code's table default. */
export const RETRYABLE = ['dealer', 'table'] as const;
/**
 * Its lead keys: the same key on every re-send; a fresh key on every send; the same key but a fresh
 * one to re-send a lead refused with IDEMPOTENCY_CONFLICT; no key at all; or (a flaw) the same key
 * re-sent with the conflicting lead.
 */
export const IDEMPOTENCY = ['same', 'fresh', 'fresh-after-conflict', 'none', 'reuse-after-conflict'] as const;
/** After a validation error with listed problems: fix them all, fix one per round trip, or give up. */
export const VALIDATION = ['fix-all', 'fix-one', 'give-up'] as const;
/** After -32008: add the URI it names to A2A-Extensions and send again, or never. */
export const ACTIVATION = ['activates', 'never'] as const;
/** Its A2A-Version header: `1.0` on every request, or none. */
export const VERSION = ['1.0', 'omits'] as const;

export interface Member {
  id: string;
  retry: (typeof RETRY)[number];
  hint: (typeof HINT)[number];
  reading: (typeof READING)[number];
  retryable: (typeof RETRYABLE)[number];
  idempotency: (typeof IDEMPOTENCY)[number];
  validation: (typeof VALIDATION)[number];
  activation: (typeof ACTIVATION)[number];
  version: (typeof VERSION)[number];
  /** Requests in flight at once (searches and lookups go through a pool of this many). */
  concurrency: 1 | 2 | 3 | 4;
  /**
   * Realistic noise: random UUID JSON-RPC ids, messageIds and idempotency keys, a consent time and
   * a message from the clock, an unknown header on every request. None of it may change a verdict.
   */
  noise: boolean;
  /** The independent searches in reverse order (which must not change a verdict either). */
  reversed: boolean;
  /** Seed of its jitter draws. */
  seed: number;
}

/** `count` values of `values`, each about equally often, in a seeded order. */
function balanced<T>(values: readonly T[], count: number, random: SeededRandom): T[] {
  const out = Array.from({ length: count }, (_, i) => values[i % values.length]!);
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * `count` members whose dimensions are drawn independently, each value equally often. Members that
 * never activate or omit the version header meet refusals only under the 2.0 scenarios; a third of
 * the population is kept to the good value of those two, so most members show the rest of their
 * behaviour everywhere.
 */
export function generateMembers(count: number, seed = 37): Member[] {
  const random = new SeededRandom(seed);
  const column = <T>(values: readonly T[]) => balanced(values, count, random);
  const retry = column(RETRY);
  const hint = column(HINT);
  const reading = column(READING);
  const retryable = column(RETRYABLE);
  const idempotency = column(IDEMPOTENCY);
  const validation = column(VALIDATION);
  const activation = column<Member['activation']>(['activates', 'activates', 'never']);
  const version = column<Member['version']>(['1.0', '1.0', 'omits']);
  const concurrency = column([1, 2, 3, 4] as const);
  const noise = column([true, false]);
  const reversed = column([false, false, true]);
  return Array.from({ length: count }, (_, i) => ({
    id: `zoo-${String(i + 1).padStart(2, '0')}`,
    retry: retry[i]!,
    hint: hint[i]!,
    reading: reading[i]!,
    retryable: retryable[i]!,
    idempotency: idempotency[i]!,
    validation: validation[i]!,
    activation: activation[i]!,
    version: version[i]!,
    concurrency: concurrency[i]!,
    noise: noise[i]!,
    reversed: reversed[i]!,
    seed: seed * 1000 + i,
  }));
}

/** One line per member, for a failure message. */
export function describe(m: Member): string {
  return (
    `${m.id}: retry ${m.retry}, hint ${m.hint}, reads by ${m.reading}, retryable from ${m.retryable}, keys ${m.idempotency}, ` +
    `validation ${m.validation}, ${m.activation}, version ${m.version}, ${m.concurrency} in flight${m.noise ? ', noisy' : ''}${m.reversed ? ', reversed' : ''}`
  );
}
