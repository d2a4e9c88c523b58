/** The drift report as text for a terminal and as JUnit XML (one test case per exchange). */
import { junitXml, type JUnitCase } from '../report/junit.js';
import type { DriftResult, ExchangeDrift } from './drift.js';

/** A value in one line: JSON, cut when long. */
function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function title(x: ExchangeDrift): string {
  return x.exchange === 0 ? 'agent card' : `exchange ${x.exchange} (${x.method}${x.skill ? ` ${x.skill}` : ''}, ${x.at})`;
}

function explain(x: ExchangeDrift): string[] {
  if (x.verdict === 'failed') return [`the live request failed: ${x.error}`];
  return x.differences.map((d) => `${d.pointer}: recorded ${shown(d.recorded)}, live ${shown(d.live)}`);
}

export function formatDrift(result: DriftResult): string {
  const drifted = result.exchanges.filter((x) => x.verdict !== 'same');
  const lines = [
    `${result.file} against ${result.target}: ${result.exchanges.length} compared, ${drifted.length === 0 ? 'no drift' : `${drifted.length} drifted`}`,
  ];
  for (const x of result.exchanges) {
    if (x.verdict === 'same') {
      lines.push(`  ${title(x)}: same`);
      continue;
    }
    lines.push(`  ${title(x)}: ${x.verdict === 'failed' ? 'FAILED' : `${x.differences.length} ${x.differences.length === 1 ? 'difference' : 'differences'}`}`);
    for (const line of explain(x)) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}

/** One test case per exchange, in one suite, written by the project's one JUnit writer. */
export function driftToJUnit(result: DriftResult): string {
  const cases = result.exchanges.map((x): JUnitCase => {
    const base = { classname: 'aap-chaos.replay-diff', name: title(x) };
    if (x.verdict === 'same') return { ...base, outcome: { kind: 'pass' } };
    const message = x.verdict === 'failed' ? 'the live request failed' : `${x.differences.length} fields differ from the recording`;
    return { ...base, outcome: { kind: 'failure', type: x.verdict, message, body: explain(x).join('\n') } };
  });
  return junitXml('aap-chaos replay --diff', [{ name: `${result.file} against ${result.target}`, cases }]);
}
