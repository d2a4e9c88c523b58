// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
/**
 * The reference buyers of examples/ against the embedded mock dealer, one chaos instance per
 * run: the resilient buyer must come out with no FAIL in every built-in scenario it meets, and
 * the naive buyer with exactly the FAILs its flaws earn there.
 */
import t, { type Test } from 'tap';
import { runNaiveBuyer } from '../../examples/naive-buyer.js';
import { runResilientBuyer } from '../../examples/resilient-buyer.js';
import type { CallOutcome, ShoppingPlan } from '../../examples/shopping-trip.js';
import { startChaos, type CheckName, type Report, type Verdict } from '../../src/index.js';
import { examplePlan } from '../../examples/example-plan.js';

const plan: ShoppingPlan = examplePlan;

type Run = (url: string, plan: ShoppingPlan) => Promise<CallOutcome[]>;

async function reportFor(t: Test, scenario: string, run: Run): Promise<Report> {
  const chaos = await startChaos({ scenario });
  t.teardown(() => chaos.close());
  await run(chaos.url, plan);
  return chaos.report();
}

function checksWith(report: Report, verdict: Verdict): CheckName[] {
  return report.checks
    .filter((c) => c.verdict === verdict)
    .map((c) => c.check)
    .sort();
}

function explain(report: Report): string {
  return report.checks.map((c) => `${c.check}: ${c.verdict} (${c.explanation})`).join('\n');
}

/** Per scenario: what the resilient buyer must PASS (proof it was tested) and what the naive one must FAIL. */
const expectations: Record<string, { resilientPasses: CheckName[]; naiveFails: CheckName[] }> = {
  // Searches beyond the limit are rate limited: hammering them breaks the hint and the rate.
  'rate-limit-storm': {
    resilientPasses: ['no-storm', 'non-retryable', 'retry-after', 'sold-vehicle'],
    naiveFails: ['no-storm', 'non-retryable', 'retry-after', 'sold-vehicle'],
  },
  // The vehicle and search outages answer immediate retries with INTERNAL_ERROR: no backoff. With
  // seed 42 a random INTERNAL_ERROR lands on one lead of each buyer: the naive one resends it
  // under a new key, the resilient one under the same key.
  'flaky-internal': {
    resilientPasses: ['backoff', 'idempotency', 'non-retryable', 'sold-vehicle'],
    naiveFails: ['backoff', 'idempotency', 'non-retryable', 'sold-vehicle'],
  },
  // Nothing gets through without the extension, so only the activation flaw shows.
  'activation-required': {
    resilientPasses: ['activation', 'non-retryable', 'sold-vehicle', 'version'],
    naiveFails: ['activation'],
  },
  // The lead refusals come once each and the naive buyer's new keys count as changed requests,
  // so only the sold-vehicle loop shows.
  'lead-gauntlet': {
    resilientPasses: ['non-retryable', 'sold-vehicle'],
    naiveFails: ['non-retryable', 'sold-vehicle'],
  },
};

for (const [scenario, expected] of Object.entries(expectations)) {
  t.test(`the resilient buyer gets no FAIL in ${scenario}`, async (t) => {
    const report = await reportFor(t, scenario, runResilientBuyer);
    t.same(checksWith(report, 'FAIL'), [], explain(report));
    t.same(checksWith(report, 'PASS'), expected.resilientPasses, explain(report));
  });

  t.test(`the naive buyer fails ${expected.naiveFails.join(', ')} in ${scenario}`, async (t) => {
    const report = await reportFor(t, scenario, (url, p) => runNaiveBuyer(url, p));
    t.same(checksWith(report, 'FAIL'), expected.naiveFails, explain(report));
  });
}
