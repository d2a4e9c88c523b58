/**
 * One run's timeline as inline SVG: time on x, one lane per skill, each request a bar from its
 * start to its end, injected faults marked, each retry linked by a curve to the error it answers,
 * and a retry hint drawn as a shaded wait after the error that carried it.
 */
import type { JournalEntry } from '../journal/entry.js';

const SKILL_ORDER = ['dealer.information', 'inventory.facets', 'inventory.search', 'inventory.vehicle', 'lead.submit'];
const OTHER_LANE = 'other';
const LABEL_W = 140;
const PLOT_W = 900;
const LANE_H = 34;
const TOP = 10;
const AXIS_H = 26;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const laneOf = (e: JournalEntry) => e.skill ?? OTHER_LANE;

/** Room a retry hint may take past the last request, at least (else as long as the requests took). */
const MIN_HINT_ROOM_MS = 10_000;

/** A retry hint's wait as drawn: 0 unless a positive finite number. */
function hintOf(e: JournalEntry): number {
  const ms = e.retry_after_ms;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** The smallest of 1, 2, 5 × 10^k seconds (from 0.1 s) that cuts `spanS` into at most eight steps. */
export function tickStepS(spanS: number): number {
  if (!Number.isFinite(spanS) || spanS <= 0) return 1;
  let magnitude = 0.1;
  for (;;) {
    for (const m of [1, 2, 5]) if (spanS / (m * magnitude) <= 8) return Number((m * magnitude).toPrecision(1));
    magnitude *= 10; // ends: spanS is finite, so some power of ten is past it
  }
}

/** An answer the buyer had to deal with: an error envelope, a broken reply, a 5xx or 429. */
export function isTrouble(e: JournalEntry): boolean {
  return e.error_code !== undefined || e.rpc_code !== undefined || e.status === 0 || e.status >= 429;
}

/** The request that retries `error`: the next one on its lane asking the same thing. */
export function retryOf(entries: readonly JournalEntry[], index: number): JournalEntry | undefined {
  const error = entries[index]!;
  for (let i = index + 1; i < entries.length; i++) {
    const e = entries[i]!;
    if (laneOf(e) !== laneOf(error) || e.method !== error.method) continue;
    if (error.request_hash === undefined || e.request_hash === error.request_hash) return e;
  }
  return undefined;
}

function barClass(e: JournalEntry): string {
  if (e.status === 0) return 'bar noreply';
  if (e.source === 'injected') return 'bar injected';
  if (e.source === 'proxy') return 'bar proxy';
  return isTrouble(e) ? 'bar dealer-error' : 'bar ok';
}

function tooltip(e: JournalEntry, t0: number): string {
  const parts = [
    `+${((e.t - t0) / 1000).toFixed(3)} s, ${Math.round(e.duration_ms)} ms`,
    e.method ? `${e.method} ${e.skill ?? ''}`.trim() : `${e.http_method} ${e.path}`,
    e.status === 0 ? 'no reply' : `HTTP ${e.status}`,
  ];
  if (e.error_code) parts.push(`${e.error_code}${e.retryable === undefined ? '' : e.retryable ? ' (retryable)' : ' (not retryable)'}`);
  if (e.retry_after_ms !== undefined) parts.push(`retry after ${e.retry_after_ms} ms`);
  if (e.fired.length) parts.push(`rules: ${e.fired.join(', ')}`);
  parts.push(`journal id ${e.id}`);
  return parts.join(' · ');
}

/** `anchor(id)` names where a bar links to (the journal line in the page), `highlight` the evidence ids. */
export function timelineSvg(journal: readonly JournalEntry[], opts: { anchor: (id: string) => string; highlight: ReadonlySet<string>; label: string }): string {
  const entries = [...journal].sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : 1));
  if (entries.length === 0) return '<p class="empty">The buyer sent no request.</p>';
  const present = new Set(entries.map(laneOf));
  const lanes = [
    ...SKILL_ORDER.filter((s) => present.has(s)),
    ...[...present].filter((s) => !SKILL_ORDER.includes(s) && s !== OTHER_LANE).sort(),
    ...(present.has(OTHER_LANE) ? [OTHER_LANE] : []),
  ];
  const t0 = entries[0]!.t;
  const requestsSpan = Math.max(1, ...entries.map((e) => e.t + e.duration_ms - t0));
  // A hint is the dealer's number: drawn up to a bound past the last request, so an absurd one
  // (6e10 ms, 1e300) neither squeezes the requests into a pixel nor grows the axis without end.
  const plotEnd = t0 + requestsSpan + Math.max(requestsSpan, MIN_HINT_ROOM_MS);
  const hintEnd = (e: JournalEntry) => Math.min(plotEnd, e.t + e.duration_ms + hintOf(e));
  const span = Math.max(requestsSpan, ...entries.map((e) => hintEnd(e) - t0));
  const x = (t: number) => LABEL_W + ((t - t0) / span) * PLOT_W;
  const laneY = (e: JournalEntry) => TOP + lanes.indexOf(laneOf(e)) * LANE_H;
  const height = TOP + lanes.length * LANE_H + AXIS_H;
  const parts: string[] = [];

  lanes.forEach((lane, i) => {
    const y = TOP + i * LANE_H;
    parts.push(`<rect class="lane${i % 2 ? ' odd' : ''}" x="${LABEL_W}" y="${y}" width="${PLOT_W}" height="${LANE_H}"/>`);
    parts.push(`<text class="lane-label" x="${LABEL_W - 8}" y="${y + LANE_H / 2 + 4}" text-anchor="end">${escapeHtml(lane)}</text>`);
  });
  // Axis: at most about eight ticks at round numbers of seconds, however long the run.
  const step = tickStepS(span / 1000);
  const axisY = TOP + lanes.length * LANE_H;
  for (let s = 0; s * 1000 <= span; s += step) {
    const tx = LABEL_W + ((s * 1000) / span) * PLOT_W;
    parts.push(`<line class="tick" x1="${tx.toFixed(1)}" y1="${TOP}" x2="${tx.toFixed(1)}" y2="${axisY + 4}"/>`);
    parts.push(`<text class="tick-label" x="${tx.toFixed(1)}" y="${axisY + 17}" text-anchor="middle">${Number(s.toFixed(1))} s</text>`);
  }

  entries.forEach((e, i) => {
    const y = laneY(e);
    const end = e.t + e.duration_ms;
    if (e.retry_after_ms !== undefined) {
      const cut = end + hintOf(e) > hintEnd(e);
      const w = Math.max(1, x(hintEnd(e)) - x(end));
      parts.push(
        `<rect class="hint" x="${x(end).toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${LANE_H - 8}"><title>retry hint: wait ${escapeHtml(String(e.retry_after_ms))} ms${cut ? ' (drawn cut at the end of the plot)' : ''}</title></rect>`,
      );
    }
    if (isTrouble(e)) {
      const retry = retryOf(entries, i);
      if (retry) {
        const x1 = x(end);
        const x2 = x(retry.t);
        const ry = laneY(retry);
        const lift = Math.min(LANE_H / 2 - 2, 6 + (x2 - x1) / 20);
        parts.push(
          `<path class="retry" d="M${x1.toFixed(1)},${y + 6} C${x1.toFixed(1)},${y + 6 - lift} ${x2.toFixed(1)},${ry + 6 - lift} ${x2.toFixed(1)},${ry + 6}"><title>retry of ${escapeHtml(e.error_code ?? (e.status === 0 ? 'no reply' : `HTTP ${e.status}`))}: ${Math.round(retry.t - end)} ms later</title></path>`,
        );
      }
    }
  });
  for (const e of entries) {
    const y = laneY(e);
    const x1 = x(e.t);
    const w = Math.max(3, x(e.t + e.duration_ms) - x1);
    const cls = barClass(e) + (opts.highlight.has(e.id) ? ' evidence' : '');
    parts.push(
      `<a href="#${opts.anchor(e.id)}"><rect class="${cls}" data-id="${e.id}" x="${x1.toFixed(1)}" y="${y + 10}" width="${w.toFixed(1)}" height="${LANE_H - 20}"><title>${escapeHtml(tooltip(e, t0))}</title></rect></a>`,
    );
    if (e.fired.length > 0) {
      parts.push(`<path class="fault" d="M${x1.toFixed(1)},${y + 9} l-4,-6 h8 z"><title>fault: ${escapeHtml(e.fired.join(', '))}</title></path>`);
    }
  }
  return `<svg class="timeline" role="img" aria-label="${escapeHtml(opts.label)}" viewBox="0 0 ${LABEL_W + PLOT_W + 20} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}
