/**
 * The exam as JUnit XML: one test suite per scenario, one test case per scenario × check (per
 * seed when there are several). FAIL becomes <failure> with the evidence ids, NOT EXERCISED
 * <skipped>, and the buyer's output goes into the suite's <system-out>/<system-err>.
 */
import { attributes, xmlEscape } from '../journal/junit.js';
import { describeExit } from './buyer-process.js';
import type { ExamRun, Scorecard } from './scorecard.js';

function testcases(run: ExamRun, withSeed: boolean): string[] {
  return Object.entries(run.verdicts).map(([check, verdict]) => {
    const name = withSeed ? `${check} [seed ${run.seed}]` : check;
    const open = `    <testcase${attributes({ classname: `aap-chaos.exam.${run.scenario}`, name, time: (run.buyer.durationMs / 1000).toFixed(3) })}`;
    const result = run.report.checks.find((c) => c.check === check && c.verdict === verdict);
    const explanation = result?.explanation ?? `the buyer ended with ${describeExit(run.buyer)}`;
    if (verdict === 'FAIL') {
      const ids = run.evidence[check as keyof ExamRun['evidence']] ?? [];
      return `${open}>\n      <failure${attributes({ type: 'FAIL', message: explanation })}>${xmlEscape(ids.length ? `evidence (journal ids): ${ids.join(' ')}` : 'no evidence')}</failure>\n    </testcase>`;
    }
    if (verdict === 'NOT EXERCISED') return `${open}>\n      <skipped${attributes({ message: explanation })}/>\n    </testcase>`;
    return `${open}/>`;
  });
}

export function examJUnit(card: Scorecard): string {
  const withSeed = card.scenarios.some((s) => s.runs.length > 1);
  const suites = card.scenarios.map((s) => {
    const runs = s.runs;
    const cases = runs.flatMap((r) => testcases(r, withSeed));
    const verdicts = runs.flatMap((r) => Object.values(r.verdicts));
    const counts = { tests: verdicts.length, failures: verdicts.filter((v) => v === 'FAIL').length, errors: 0, skipped: verdicts.filter((v) => v === 'NOT EXERCISED').length };
    const out = runs.map((r) => `seed ${r.seed}: buyer ${describeExit(r.buyer)}\n${r.buyer.stdout}`).join('\n');
    const err = runs.map((r) => r.buyer.stderr).join('\n');
    return [
      `  <testsuite${attributes({ name: `aap-chaos exam: ${s.scenario}`, ...counts })}>`,
      ...cases,
      `    <system-out>${xmlEscape(out)}</system-out>`,
      `    <system-err>${xmlEscape(err)}</system-err>`,
      '  </testsuite>',
    ].join('\n');
  });
  const all = card.scenarios.flatMap((s) => s.runs.flatMap((r) => Object.values(r.verdicts)));
  const totals = { tests: all.length, failures: all.filter((v) => v === 'FAIL').length, errors: 0, skipped: all.filter((v) => v === 'NOT EXERCISED').length };
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attributes({ name: 'aap-chaos exam', ...totals })}>`, ...suites, '</testsuites>', ''].join('\n');
}
