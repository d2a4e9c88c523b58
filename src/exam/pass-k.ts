/**
 * pass^k and pass@1 over the exam's k runs of each scenario (`--seeds K`, `--repeat K`): one
 * green run of a non-deterministic buyer proves little. Trial i is the i-th run of every scenario;
 * a check passes trial i when no scenario FAILs it there (a baselined FAIL still counts as failed:
 * pass^k measures the buyer, not the baseline). pass^k is 1 when every trial passed, else 0;
 * pass@1 is the share of trials that passed.
 */

/** What pass^k reads of a run and a scorecard (structural, so the scorecard can use this file). */
interface TrialRun {
  seed: number;
  trial: number;
  verdicts: Record<string, string>;
}
interface Card<C extends string> {
  checks: C[];
  scenarios: { runs: TrialRun[] }[];
}

export interface PassK {
  k: number;
  pass_k: number;
  pass_at_1: number;
  /** The seeds of the trials that failed (a seed shows once per failing repeat). */
  failed_seeds: number[];
}

function over(k: number, runs: readonly TrialRun[], failed: (run: TrialRun) => boolean): PassK {
  const bad = new Map<number, number>();
  for (const r of runs) if (failed(r)) bad.set(r.trial, r.seed);
  const passed = k - bad.size;
  return {
    k,
    pass_k: passed === k ? 1 : 0,
    pass_at_1: k === 0 ? 0 : passed / k,
    failed_seeds: [...bad.entries()].sort(([a], [b]) => a - b).map(([, seed]) => seed),
  };
}

export function passK<C extends string>(card: Card<C>): { overall: PassK; checks: Record<C, PassK> } {
  const runs = card.scenarios.flatMap((s) => s.runs);
  const k = Math.max(0, ...card.scenarios.map((s) => s.runs.length));
  const checks = Object.fromEntries(card.checks.map((c) => [c, over(k, runs, (r) => r.verdicts[c] === 'FAIL')])) as Record<C, PassK>;
  return { overall: over(k, runs, (r) => Object.values(r.verdicts).includes('FAIL')), checks };
}

/** "2/3" style, exact for small k. */
export function fraction(p: PassK): string {
  return `${Math.round(p.pass_at_1 * p.k)}/${p.k}`;
}
