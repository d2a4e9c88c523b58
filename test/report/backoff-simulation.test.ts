// How often the backoff rule is wrong by chance: seeded simulations of whole runs, each buyer
// facing a handful of retryable failures the way the flaky-internal scenario hands them out.
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { SeededRandom } from '../../src/common/random.js';
import { CHECKS } from '../../src/report/checks/index.js';
import { resolveThresholds } from '../../src/report/thresholds.js';
import { journalLine } from '../helpers/journal-line.js';

const BUYERS = 10_000;
const thresholds = resolveThresholds();

/** How long a buyer waits before its n-th retry (n from 0), given the generator. */
type Strategy = (n: number, random: SeededRandom) => number;

interface RunShape {
  /** Retry chains in the run: drawn from [min, max]. */
  chains: [number, number];
  /** Chance that a retry fails again (the chain goes on, up to 4 retries). */
  failAgain: number;
}

/** One simulated run: chains of failures and retries on distinct requests, with real-looking timing. */
function simulateRun(strategy: Strategy, random: SeededRandom, shape: RunShape): JournalEntry[] {
  const entries: JournalEntry[] = [];
  let now = 1_700_000_000_000 + random.next() * 1000;
  const send = (hash: string, failed: boolean) => {
    const duration = 2 + random.next() * 30;
    const fields: Partial<JournalEntry> = failed
      ? { source: 'injected', rpc_code: -32603, error_code: 'INTERNAL_ERROR', retryable: true, outcome: 'error' }
      : { outcome: 'result' };
    // The journal keeps whole milliseconds of the start and the exact duration.
    entries.push(
      journalLine(`s${entries.length}`, Math.floor(now), {
        client: 'sim',
        skill: 'inventory.vehicle',
        request_hash: hash,
        duration_ms: Math.round(duration * 100) / 100,
        ...fields,
      }),
    );
    now += duration;
  };
  const chains = random.int(shape.chains[0], shape.chains[1]);
  for (let c = 0; c < chains; c++) {
    const hash = `request-${c}`;
    send(hash, true);
    for (let n = 0; n < 4; n++) {
      now += strategy(n, random);
      const failed = random.next() < shape.failAgain;
      send(hash, failed);
      if (!failed) break;
    }
    now += 200 + random.next() * 500; // other, successful traffic between chains
  }
  return entries;
}

function failRate(strategy: Strategy, shape: RunShape, seed: number): number {
  const random = new SeededRandom(seed);
  let failed = 0;
  for (let i = 0; i < BUYERS; i++) {
    const requests = simulateRun(strategy, random, shape);
    if (CHECKS.backoff.grade({ client: 'sim', requests, thresholds }).verdict === 'FAIL') failed++;
  }
  return failed / BUYERS;
}

const FLAKY: RunShape = { chains: [1, 8], failAgain: 0.5 };

/** AWS-style full jitter: uniform in [0, base·2^n], base 100 ms (the most lenient the rule allows) to 300 ms. */
const fullJitter =
  (base?: number): Strategy =>
  (n, random) =>
    random.next() * (base ?? 100) * 2 ** n;
/** Equal jitter: half the step fixed, half drawn. */
const equalJitter: Strategy = (n, random) => {
  const step = 100 * 2 ** n;
  return step / 2 + (random.next() * step) / 2;
};
/** Straight away: a few milliseconds of the buyer's own work. */
const atOnce: Strategy = (_n, random) => random.next() * 3;
const constant: Strategy = (_n, random) => 250 + random.next() * 10;

t.test(`full jitter (base 100 ms) is failed by chance in at most 1 % of ${BUYERS} simulated buyers`, async (t) => {
  const rate = failRate(fullJitter(100), FLAKY, 1);
  t.ok(rate <= 0.01, `false-FAIL rate ${(rate * 100).toFixed(2)} %`);
  const chainHeavy = failRate(fullJitter(100), { chains: [6, 12], failAgain: 0.7 }, 2);
  t.ok(chainHeavy <= 0.01, `with 6 to 12 chains that fail often: ${(chainHeavy * 100).toFixed(2)} %`);
  t.ok(failRate(fullJitter(250), FLAKY, 3) <= 0.01, 'a larger base only waits longer');
});

t.test('equal jitter is never failed', async (t) => {
  t.equal(failRate(equalJitter, FLAKY, 4), 0);
});

t.test('retrying at once fails in 3 chains of a single retry each, in nearly every run', async (t) => {
  const rate = failRate(atOnce, { chains: [3, 3], failAgain: 0 }, 5);
  t.ok(rate >= 0.99, `caught in ${(rate * 100).toFixed(2)} % of runs`);
});

t.test('retrying at a constant interval fails once the run shows enough long chains', async (t) => {
  const rate = failRate(constant, { chains: [6, 10], failAgain: 0.9 }, 6);
  t.ok(rate >= 0.9, `caught in ${(rate * 100).toFixed(2)} % of runs`);
});
