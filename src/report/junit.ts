/**
 * The report as JUnit XML, so CI systems list every check for every client as a test case:
 * FAIL becomes <failure>, NOT EXERCISED becomes <skipped>, PASS a plain passing case.
 * Client keys come from the network (addresses, header values), so everything is escaped.
 */
import type { CheckResult, Report } from './report.js';

const SUITE_NAME = 'aap-chaos buyer resilience';

/** Characters XML 1.0 cannot carry at all, even escaped. */
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for an XML attribute or element; characters XML forbids become U+FFFD. */
export function xmlEscape(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export function attributes(attrs: Record<string, string | number>): string {
  return Object.entries(attrs)
    .map(([name, value]) => ` ${name}="${xmlEscape(String(value))}"`)
    .join('');
}

function testcase(result: CheckResult): string {
  const open = `    <testcase${attributes({ classname: `aap-chaos.${result.check}`, name: `${result.check} [${result.client}]` })}`;
  const evidence = result.evidence.length > 0 ? `evidence (journal ids): ${result.evidence.join(' ')}` : 'no evidence';
  switch (result.verdict) {
    case 'FAIL':
      return `${open}>\n      <failure${attributes({ type: 'FAIL', message: result.explanation })}>${xmlEscape(evidence)}</failure>\n    </testcase>`;
    case 'NOT EXERCISED':
      return `${open}>\n      <skipped${attributes({ message: result.explanation })}/>\n    </testcase>`;
    case 'PASS':
      return `${open}>\n      <system-out>${xmlEscape(`${result.explanation}\n${evidence}`)}</system-out>\n    </testcase>`;
  }
}

export function toJUnit(report: Report): string {
  const { pass, fail, not_exercised } = report.summary;
  const counts = { tests: pass + fail + not_exercised, failures: fail, errors: 0, skipped: not_exercised };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: SUITE_NAME, ...counts })}>`,
    `  <testsuite${attributes({ name: SUITE_NAME, ...counts, timestamp: report.generated_at })}>`,
    ...report.checks.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
