/**
 * The exam as one self-contained HTML page (no script, no font, no request to anywhere): the
 * scorecard, then per scenario and seed a timeline of the buyer's requests, the evidence of every
 * FAIL as journal lines, the full journal and the buyer's output. Each FAIL in the scorecard links
 * to its evidence; each bar of a timeline links to its journal line.
 */
import { describeExit } from './buyer-process.js';
import { requirementIdOf, type CellVerdict, type ExamCheck, type ExamRun, type Scorecard } from './scorecard.js';
import { escapeHtml, timelineSvg } from './timeline.js';
import type { Reproducer } from './shrink-run.js';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}.muted{color:#5b6475}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;font-weight:600;color:#fff}
.verdict.ok{background:#1f8a4c}.verdict.bad{background:#c0392b}
table.scorecard{border-collapse:collapse;margin-top:12px}
.scorecard th,.scorecard td{border:1px solid #d8dde6;padding:4px 8px;text-align:center;white-space:nowrap}
.scorecard th{background:#f2f4f8;font-weight:600}.scorecard td.name{text-align:left;font-weight:600}
td.PASS{background:#e3f5ea;color:#17643a}td.FAIL{background:#fbe3e0;color:#a12b1e;font-weight:700}
td.FLAKY{background:#fff1d6;color:#8a5a00;font-weight:700}td.NE{color:#8a93a3;font-size:12px}
td.FAIL a,td.FLAKY a{color:inherit}
svg.timeline{max-width:1060px;display:block;margin:6px 0 10px;border:1px solid #e3e7ee;background:#fff}
.lane{fill:#fafbfd}.lane.odd{fill:#f3f5f9}.lane-label{font-size:12px;fill:#3a4254}
.tick{stroke:#dfe3ea;stroke-width:1}.tick-label{font-size:11px;fill:#6b7486}
.bar{stroke:#ffffff;stroke-width:.5}.bar.ok{fill:#2e9e5b}.bar.injected{fill:#d64532}.bar.dealer-error{fill:#e08a1e}
.bar.proxy{fill:#7d4cc2}.bar.noreply{fill:#6b7486}.bar.evidence{stroke:#111;stroke-width:2}
.hint{fill:#3b7dd8;fill-opacity:.16;stroke:#3b7dd8;stroke-opacity:.5;stroke-dasharray:3 2}
.retry{fill:none;stroke:#3b7dd8;stroke-width:1.4}.fault{fill:#d64532}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:-1px}
.evidence-block{border-left:4px solid #c0392b;background:#fdf4f3;padding:6px 10px;margin:8px 0}
.evidence-block:target{outline:3px solid #3b7dd8}
.evidence-block ol{margin:4px 0;padding-left:22px}.evidence-block li{margin:2px 0}
.evidence-block code,ol.journal code{white-space:pre-wrap;word-break:break-all}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}pre{white-space:pre-wrap;word-break:break-all;background:#f6f7f9;padding:8px;max-height:320px;overflow:auto}
li:target{background:#fff4c2}details{margin:4px 0}
`;

const LEGEND =
  '<p class="legend"><span><i style="background:#2e9e5b"></i>dealer reply</span><span><i style="background:#d64532"></i>injected fault</span>' +
  '<span><i style="background:#e08a1e"></i>dealer error</span><span><i style="background:#7d4cc2"></i>proxy: dealer unreachable</span>' +
  '<span><i style="background:#6b7486"></i>no reply</span><span><i style="background:#3b7dd8;opacity:.35"></i>retry hint (wait asked for)</span>' +
  '<span>▼ rule fired · curve: retry of the error it answers · outlined: evidence of a FAIL</span></p>';

// By trial, not seed: --repeat runs one seed several times.
const runKey = (card: Scorecard, run: ExamRun) => `${card.scenarios.findIndex((s) => s.scenario === run.scenario)}-${run.trial}`;
export const evidenceAnchor = (key: string, check: string) => `ev-${key}-${check}`;
const lineAnchor = (key: string, id: string) => `j-${key}-${id}`;

function cell(card: Scorecard, scenarioIndex: number, check: ExamCheck, verdict: CellVerdict): string {
  const s = card.scenarios[scenarioIndex]!;
  if (verdict === 'FAIL' || verdict === 'FLAKY') {
    const run = s.runs.find((r) => r.verdicts[check] === 'FAIL')!;
    const expected = card.baseline?.expected.find((e) => e.scenario === s.scenario && e.check === check);
    const label = expected ? `EXPECTED ${verdict}` : verdict;
    const title = expected ? ` title="${escapeHtml(`${card.baseline!.file}:${expected.line}: ${expected.reason}`)}"` : '';
    return `<td class="${expected ? 'NE' : verdict}"${title}><a href="#${evidenceAnchor(runKey(card, run), check)}">${label}</a></td>`;
  }
  return verdict === 'PASS' ? '<td class="PASS">PASS</td>' : `<td class="NE">${verdict}</td>`;
}

function scorecardTable(card: Scorecard): string {
  const head = `<tr><th>scenario</th>${card.checks.map((c) => `<th>${escapeHtml(c)}${requirementIdOf(c) ? `<br><span class="muted">${requirementIdOf(c)}</span>` : ''}</th>`).join('')}<th>buyer</th><th>time</th></tr>`;
  const rows = card.scenarios.map((s, i) => {
    const exits = [...new Set(s.runs.map((r) => describeExit(r.buyer)))].join(' / ');
    const time = (s.runs.reduce((sum, r) => sum + r.buyer.durationMs, 0) / 1000).toFixed(1);
    const seeds = s.runs.length > 1 ? ` <span class="muted">×${s.runs.length} seeds</span>` : '';
    return `<tr><td class="name"><a href="#sc-${i}">${escapeHtml(s.scenario)}</a>${seeds}</td>${card.checks.map((c) => cell(card, i, c, s.verdicts[c])).join('')}<td>${escapeHtml(exits)}</td><td>${time} s</td></tr>`;
  });
  const battery = `<tr><td class="name">whole battery</td>${card.checks.map((c) => `<td class="${card.battery[c] === 'PASS' || card.battery[c] === 'FAIL' || card.battery[c] === 'FLAKY' ? card.battery[c] : 'NE'}">${card.battery[c]}</td>`).join('')}<td></td><td></td></tr>`;
  return `<table class="scorecard">${head}${rows.join('')}${battery}</table>`;
}

/** Where a FAIL's reproducer is and which faults it keeps, each linked to the request it hit. */
function reproHtml(key: string, repro: Reproducer | undefined): string {
  if (repro === undefined) return '';
  if (!repro.reproducible) return '<p class="repro">Not reproducible: a re-run with the same faults did not FAIL (the buyer is flaky).</p>';
  const faults = repro.faults.map((f, i) => `<li><a href="#${lineAnchor(key, repro.entries[i]!)}">${escapeHtml(f)}</a></li>`).join('');
  return `<p class="repro">Minimal reproducer: <a href="${escapeHtml(repro.file!)}">${escapeHtml(repro.file!)}</a>${repro.oneMinimal ? '' : ' (budget spent before 1-minimal)'} — <code>${escapeHtml(repro.command!)}</code></p><ol>${faults}</ol>`;
}

function runSection(card: Scorecard, run: ExamRun, reproducers: readonly Reproducer[]): string {
  const key = runKey(card, run);
  const reproOf = (check: ExamCheck) => reproducers.find((r) => r.scenario === run.scenario && r.trial === run.trial && r.check === check);
  const byId = new Map(run.journal.map((e) => [e.id, e]));
  const failed = (Object.entries(run.verdicts) as [ExamCheck, string][]).filter(([, v]) => v === 'FAIL');
  // The minimal faults of a reproducer are outlined on the timeline like the evidence.
  const highlight = new Set(failed.flatMap(([c]) => [...(run.evidence[c] ?? []), ...(reproOf(c)?.entries ?? [])]));
  const evidence = failed.map(([check]) => {
    const result = run.report.checks.find((c) => c.check === check && c.verdict === 'FAIL');
    const ids = run.evidence[check] ?? [];
    const items = ids.map((id) => {
      const line = byId.get(id);
      return `<li><a href="#${lineAnchor(key, id)}"><code>${id}</code></a> <code>${escapeHtml(line ? JSON.stringify(line) : '(no longer in the journal)')}</code></li>`;
    });
    const why = run.explanations[check] ?? result?.explanation ?? `the buyer ended with ${describeExit(run.buyer)}`;
    return `<div class="evidence-block" id="${evidenceAnchor(key, check)}"><strong>${escapeHtml(check)}: FAIL</strong> — ${escapeHtml(why)}${items.length ? `<ol>${items.join('')}</ol>` : ''}${reproHtml(key, reproOf(check))}</div>`;
  });
  const journal = run.journal.map((e) => `<li id="${lineAnchor(key, e.id)}"><code>${escapeHtml(JSON.stringify(e))}</code></li>`).join('');
  const output = (['stdout', 'stderr'] as const)
    .filter((n) => run.buyer[n].trim() !== '')
    .map((n) => `<details${run.ok ? '' : ' open'}><summary>buyer ${n}</summary><pre>${escapeHtml(run.buyer[n])}</pre></details>`)
    .join('');
  const label = `timeline of ${run.scenario}, seed ${run.seed}`;
  return [
    `<h3 id="run-${key}">seed ${run.seed} — <span class="verdict ${run.ok ? 'ok' : 'bad'}">${run.ok ? 'PASS' : 'FAIL'}</span> <span class="muted">buyer ${escapeHtml(describeExit(run.buyer))}, ${(run.buyer.durationMs / 1000).toFixed(1)} s, ${run.journal.length} requests</span></h3>`,
    timelineSvg(run.journal, { anchor: (id) => lineAnchor(key, id), highlight, label }),
    ...evidence,
    output,
    `<details${highlight.size ? ' open' : ''}><summary>journal (${run.journal.length} lines)</summary><ol class="journal">${journal}</ol></details>`,
  ].join('\n');
}

export function examHtml(card: Scorecard, generatedAt = new Date(), reproducers: readonly Reproducer[] = []): string {
  const { pass, fail, flaky, not_exercised } = card.summary;
  const overall = card.verdict;
  const stale = (card.baseline?.stale ?? []).map(
    (e) =>
      `<p class="stale">STALE ${escapeHtml(`${card.baseline!.file}:${e.line}: ${e.requirement}${e.scenario ? ` in ${e.scenario}` : ''} now passes in every run it covers; delete this entry from the baseline`)}</p>`,
  );
  const missing =
    (card.incomplete.length > 0
      ? `<p>Never passed: ${card.incomplete.map((i) => escapeHtml(`${i.check}${i.id ? ` (${i.id})` : ''} ${i.verdict}`)).join(', ')}</p>`
      : '') + stale.join('');
  const sections = card.scenarios.map((s, i) => {
    const flakyNote = s.flaky ? ' <span class="verdict bad">FLAKY</span>' : '';
    return `<section id="sc-${i}"><h2>${escapeHtml(s.scenario)}${flakyNote}${s.ref !== s.scenario ? ` <span class="muted">${escapeHtml(s.ref)}</span>` : ''}</h2>${s.runs.map((r) => runSection(card, r, reproducers)).join('\n')}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>aap-chaos exam: ${overall}</title><style>${STYLE}</style></head>
<body>
<h1>aap-chaos exam <span class="verdict ${overall === 'PASS' ? 'ok' : 'bad'}" id="overall">${overall}</span></h1>
<p class="muted">${pass} passed, ${fail} failed, ${flaky} flaky, ${not_exercised} not exercised · ${card.scenarios.length} scenarios · ${escapeHtml(generatedAt.toISOString())}</p>
${scorecardTable(card)}
${missing}
${LEGEND}
${sections.join('\n')}
</body></html>
`;
}
