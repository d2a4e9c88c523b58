/**
 * The soak's samples as one SVG: RSS, heap used, open file descriptors and event-loop delay p99
 * against minutes, one panel each, with the end of the warm-up and the Redis restart marked.
 * Hand-drawn, like the dashboard's charts: no chart library.
 */
const PANELS = [
  { field: 'rssMb', title: 'RSS (MB)', color: '#1f77b4' },
  { field: 'heapMb', title: 'heap used (MB)', color: '#2ca02c' },
  { field: 'fds', title: 'open file descriptors', color: '#9467bd' },
  // The idle process beside the proxy (grey): how late any event loop ran on the machine then.
  { field: 'loopP99Ms', title: 'event-loop delay p99 (ms); grey: an idle process on the same machine', color: '#d62728', also: 'idleLoopP99Ms' },
];
const W = 760;
const PANEL_H = 150;
const LEFT = 60;
const RIGHT = 20;
const TOP = 40;
const GAP = 40;

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

function panel(samples, { field, title, color, also }, index, marks, maxMinute) {
  const y0 = TOP + index * (PANEL_H + GAP);
  const values = samples.flatMap((s) => (also ? [s[field], s[also] ?? 0] : [s[field]]));
  const lo = Math.min(0, ...values);
  const hi = Math.max(...values, lo + 1) * 1.1;
  const x = (m) => LEFT + ((W - LEFT - RIGHT) * m) / (maxMinute || 1);
  const y = (v) => y0 + PANEL_H - (PANEL_H * (v - lo)) / (hi - lo);
  const line = (f) => samples.map((s, i) => `${i ? 'L' : 'M'}${x(s.minute).toFixed(1)},${y(s[f] ?? 0).toFixed(1)}`).join(' ');
  const baseline = also ? `<path d="${line(also)}" fill="none" stroke="#aaa" stroke-width="1"/>` : '';
  const ticks = [lo, (lo + hi) / 2, hi]
    .map(
      (v) =>
        `<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text><line x1="${LEFT}" x2="${W - RIGHT}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
    )
    .join('');
  const lines = marks
    .map((m) => `<line x1="${x(m.minute)}" x2="${x(m.minute)}" y1="${y0}" y2="${y0 + PANEL_H}" stroke="#999" stroke-dasharray="4 3"/>`)
    .join('');
  return `<g><text x="${LEFT}" y="${y0 - 8}" font-weight="bold">${esc(title)}</text>${ticks}${lines}${baseline}<path d="${line(field)}" fill="none" stroke="${color}" stroke-width="1.5"/></g>`;
}

/** The SVG text; `marks`: [{minute, label}] drawn as dashed lines across every panel. */
export function plotSamples(samples, { title, marks = [] }) {
  const maxMinute = Math.max(...samples.map((s) => s.minute), 1);
  const height = TOP + PANELS.length * (PANEL_H + GAP);
  const x = (m) => LEFT + ((W - LEFT - RIGHT) * m) / maxMinute;
  const axis = Array.from({ length: 6 }, (_, i) => (maxMinute * i) / 5)
    .map((m) => `<text x="${x(m)}" y="${height - 8}" text-anchor="middle">${fmt(m)} min</text>`)
    .join('');
  const legend = marks.map((m) => `<text x="${x(m.minute) + 4}" y="${TOP + 12}" fill="#666">${esc(m.label)}</text>`).join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`,
    ...PANELS.map((p, i) => panel(samples, p, i, marks, maxMinute)),
    legend,
    axis,
    '</svg>',
  ].join('\n');
}
