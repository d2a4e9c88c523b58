// The buyer report's checks, per client, as GET /report grades the journal right now.
import { byId, clientHash, fill, h } from './dom.js';
import type { Report } from './types.js';

export function renderReport(report: Report): void {
  const { pass, fail, not_exercised, not_applicable } = report.summary;
  const summary = report.clients.length
    ? `${pass} pass · ${fail} fail · ${not_exercised} not exercised · ${not_applicable} not applicable`
    : 'no buyer requests yet';
  byId('report-summary').textContent = report.observe ? `${summary} · observe mode: ${observedFails(report)} violations seen live` : summary;
  fill(
    byId('report-rows'),
    ...report.checks.map((c) =>
      h(
        'tr',
        { 'data-check': c.check, 'data-client': c.client },
        h('td', {}, h('span', { class: 'check-name', title: c.id }, c.check), h('div', { class: 'explanation' }, c.explanation)),
        h('td', { class: 'mono', title: 'hash of the client key' }, clientHash(c.client)),
        h('td', {}, h('span', { class: `verdict verdict-${c.verdict.replace(' ', '-').toLowerCase()}` }, c.verdict)),
      ),
    ),
  );
}

/** FAIL verdicts of the live grading so far, over every check (--observe). */
function observedFails(report: Report): number {
  return Object.values(report.observe?.verdicts ?? {}).reduce((n, v) => n + v.FAIL, 0);
}
