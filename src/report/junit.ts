/**
 * The one JUnit XML writer of the project: the report, the exam and `aap-chaos check` each turn
 * their verdicts into suites of test cases, and this file writes them, so CI systems read the
 * same shapes everywhere: a failure is <failure>, something not graded is <skipped>, a pass is a
 * plain case. Client keys, explanations and buyer output come from outside, so every text is
 * escaped, and characters XML cannot carry at all become U+FFFD.
 */
import { CHECKS } from './checks/index.js';
import type { CheckResult, Report } from './report.js';

/** Characters XML 1.0 cannot carry at all, even escaped. */
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for an XML attribute or element; characters XML forbids become U+FFFD. */
export function xmlEscape(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

export function attributes(attrs: Record<string, string | number | undefined>): string {
  return Object.entries(attrs)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${xmlEscape(String(value))}"`)
    .join('');
}

/** What became of one test case. */
export type JUnitOutcome =
  | { kind: 'pass'; out?: string; err?: string }
  | { kind: 'failure'; type: string; message: string; body: string }
  | { kind: 'skipped'; message: string };

export interface JUnitCase {
  classname: string;
  name: string;
  /** Seconds. */
  time?: number;
  /** Name → value pairs written as <properties> (a requirement id, its level). */
  properties?: Record<string, string>;
  outcome: JUnitOutcome;
}

export interface JUnitSuite {
  name: string;
  timestamp?: string;
  cases: JUnitCase[];
  /** The suite's <system-out> / <system-err>, written even when empty once given. */
  out?: string;
  err?: string;
}

function counts(cases: readonly JUnitCase[]): { tests: number; failures: number; errors: number; skipped: number } {
  return {
    tests: cases.length,
    failures: cases.filter((c) => c.outcome.kind === 'failure').length,
    errors: 0,
    skipped: cases.filter((c) => c.outcome.kind === 'skipped').length,
  };
}

function testcase(c: JUnitCase): string {
  const open = `    <testcase${attributes({ classname: c.classname, name: c.name, time: c.time?.toFixed(3) })}`;
  const props = c.properties
    ? [`      <properties>`, ...Object.entries(c.properties).map(([name, value]) => `        <property${attributes({ name, value })}/>`), `      </properties>`]
    : [];
  const inner: string[] = [...props];
  const { outcome } = c;
  if (outcome.kind === 'failure')
    inner.push(`      <failure${attributes({ type: outcome.type, message: outcome.message })}>${xmlEscape(outcome.body)}</failure>`);
  else if (outcome.kind === 'skipped') inner.push(`      <skipped${attributes({ message: outcome.message })}/>`);
  else {
    if (outcome.out !== undefined) inner.push(`      <system-out>${xmlEscape(outcome.out)}</system-out>`);
    if (outcome.err !== undefined) inner.push(`      <system-err>${xmlEscape(outcome.err)}</system-err>`);
  }
  return inner.length === 0 ? `${open}/>` : [`${open}>`, ...inner, '    </testcase>'].join('\n');
}

/** The whole document: <testsuites> named `name`, holding every suite with its counts. */
export function junitXml(name: string, suites: readonly JUnitSuite[]): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attributes({ name, ...counts(suites.flatMap((s) => s.cases)) })}>`];
  for (const suite of suites) {
    lines.push(`  <testsuite${attributes({ name: suite.name, ...counts(suite.cases), timestamp: suite.timestamp })}>`, ...suite.cases.map(testcase));
    if (suite.out !== undefined) lines.push(`    <system-out>${xmlEscape(suite.out)}</system-out>`);
    if (suite.err !== undefined) lines.push(`    <system-err>${xmlEscape(suite.err)}</system-err>`);
    lines.push('  </testsuite>');
  }
  return [...lines, '</testsuites>', ''].join('\n');
}

const SUITE_NAME = 'aap-chaos buyer resilience';

/** The requirement a check enforces, as test-case properties; none for a name that is not a check. */
export function requirementProperties(check: string): Record<string, string> | undefined {
  const requirement = Object.hasOwn(CHECKS, check) ? CHECKS[check as keyof typeof CHECKS].requirement : undefined;
  return requirement && { requirement: requirement.id, level: requirement.level };
}

function reportCase(result: CheckResult): JUnitCase {
  const evidence = result.evidence.length > 0 ? `evidence (journal ids): ${result.evidence.join(' ')}` : 'no evidence';
  const base = { classname: `aap-chaos.${result.check}`, name: `${result.check} [${result.client}]`, properties: requirementProperties(result.check) };
  switch (result.verdict) {
    case 'FAIL':
      return { ...base, outcome: { kind: 'failure', type: 'FAIL', message: result.explanation, body: evidence } };
    case 'PASS':
      return { ...base, outcome: { kind: 'pass', out: `${result.explanation}\n${evidence}` } };
    default:
      return { ...base, outcome: { kind: 'skipped', message: result.explanation } };
  }
}

/** The report: every check for every client as a test case, in one suite. */
export function toJUnit(report: Report): string {
  return junitXml(SUITE_NAME, [{ name: SUITE_NAME, timestamp: report.generated_at, cases: report.checks.map(reportCase) }]);
}
