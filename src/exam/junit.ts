/**
 * The exam as JUnit XML: one test suite per scenario, one test case per scenario × check (per
 * seed when there are several). FAIL becomes <failure> with the evidence ids, NOT EXERCISED
 * <skipped>, and the buyer's output goes into the suite's <system-out>/<system-err>.
 */
import { junitXml, requirementProperties, type JUnitCase, type JUnitSuite } from '../report/junit.js';
import { describeExit } from './buyer-process.js';
import type { ExamRun, Scorecard } from './scorecard.js';

function testcases(run: ExamRun, withSeed: boolean, card: Scorecard): JUnitCase[] {
  return Object.entries(run.verdicts).map(([check, verdict]): JUnitCase => {
    const base = {
      classname: `aap-chaos.exam.${run.scenario}`,
      name: withSeed ? `${check} [seed ${run.seed}]` : check,
      time: run.buyer.durationMs / 1000,
      properties: requirementProperties(check),
    };
    const result = run.report.checks.find((c) => c.check === check && c.verdict === verdict);
    const explanation = result?.explanation ?? `the buyer ended with ${describeExit(run.buyer)}`;
    const expected = card.baseline?.expected.find((e) => e.scenario === run.scenario && e.check === check);
    if (verdict === 'FAIL' && expected)
      return { ...base, outcome: { kind: 'skipped', message: `EXPECTED FAIL (${card.baseline!.file}:${expected.line}: ${expected.reason}): ${explanation}` } };
    if (verdict === 'FAIL') {
      const ids = run.evidence[check as keyof ExamRun['evidence']] ?? [];
      return {
        ...base,
        outcome: { kind: 'failure', type: 'FAIL', message: explanation, body: ids.length ? `evidence (journal ids): ${ids.join(' ')}` : 'no evidence' },
      };
    }
    if (verdict === 'NOT EXERCISED' || verdict === 'NOT APPLICABLE') return { ...base, outcome: { kind: 'skipped', message: `${verdict}: ${explanation}` } };
    return { ...base, outcome: { kind: 'pass' } };
  });
}

export function examJUnit(card: Scorecard): string {
  const withSeed = card.scenarios.some((s) => s.runs.length > 1);
  const suites = card.scenarios.map(
    (s): JUnitSuite => ({
      name: `aap-chaos exam: ${s.scenario}`,
      cases: s.runs.flatMap((r) => testcases(r, withSeed, card)),
      out: s.runs.map((r) => `seed ${r.seed}: buyer ${describeExit(r.buyer)}\n${r.buyer.stdout}`).join('\n'),
      err: s.runs.map((r) => r.buyer.stderr).join('\n'),
    }),
  );
  const stale = card.baseline?.stale ?? [];
  if (stale.length > 0) {
    suites.push({
      name: 'aap-chaos exam: baseline',
      cases: stale.map((e) => ({
        classname: 'aap-chaos.exam.baseline',
        name: `${e.requirement}${e.scenario ? ` in ${e.scenario}` : ''}`,
        outcome: {
          kind: 'failure',
          type: 'STALE',
          message: `${card.baseline!.file}:${e.line}: now passes in every run it covers; delete this entry`,
          body: e.reason,
        },
      })),
    });
  }
  return junitXml('aap-chaos exam', suites);
}
