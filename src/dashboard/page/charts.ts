// Two small hand-drawn SVG charts over the last minutes: request rate (faults in the same bars)
// and injected faults per rule, stacked. No chart library: thirty rectangles each.
import { byId, fill, h, svg } from './dom.js';
import { isFault, type JournalLine } from './types.js';

const WINDOW_MS = 5 * 60_000;
const BUCKET_MS = 10_000;
const BUCKETS = WINDOW_MS / BUCKET_MS;
const WIDTH = 360;
const HEIGHT = 110;
const AXIS = 28;
const PALETTE = ['#d9480f', '#1971c2', '#2f9e44', '#ae3ec9', '#f08c00', '#0c8599', '#e03131', '#5f3dc4'];

interface Bucket {
  total: number;
  faults: Map<string, number>;
}

export function renderCharts(lines: readonly JournalLine[], now = Date.now()): void {
  const start = Math.floor((now - WINDOW_MS) / BUCKET_MS + 1) * BUCKET_MS;
  const buckets: Bucket[] = Array.from({ length: BUCKETS }, () => ({ total: 0, faults: new Map() }));
  const rules = new Set<string>();
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.t < start) break; // lines arrive in finishing order, close enough to start order for a chart
    const bucket = buckets[Math.floor((line.t - start) / BUCKET_MS)];
    if (!bucket) continue;
    bucket.total++;
    if (!isFault(line)) continue;
    for (const rule of line.fired) {
      rules.add(rule);
      bucket.faults.set(rule, (bucket.faults.get(rule) ?? 0) + 1);
    }
  }
  const colors = new Map([...rules].sort().map((rule, i) => [rule, PALETTE[i % PALETTE.length]!]));

  const rate = buckets.map((b) => [{ value: b.total / (BUCKET_MS / 1000), color: '#868e96' }]);
  fill(byId('chart-rate'), chart(rate, 'req/s'));
  const faults = buckets.map((b) => [...b.faults].map(([rule, n]) => ({ value: n, color: colors.get(rule)! })));
  fill(byId('chart-faults'), chart(faults, 'faults'));
  fill(
    byId('chart-legend'),
    ...(colors.size
      ? [...colors].map(([rule, color]) => h('span', { class: 'legend-item', 'data-rule': rule }, swatch(color), rule))
      : ['no faults injected in the last 5 minutes']),
  );
}

/** Stacked bars, one per bucket, with the peak value written on the axis. */
function chart(stacks: Array<Array<{ value: number; color: string }>>, unit: string): SVGElement {
  const peak = Math.max(...stacks.map((s) => s.reduce((sum, part) => sum + part.value, 0)));
  const scale = peak > 0 ? (HEIGHT - 14) / peak : 0;
  const barWidth = (WIDTH - AXIS) / stacks.length;
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT + 14}`, class: 'chart', role: 'img', 'aria-label': `${unit} over the last 5 minutes` });
  root.append(svg('line', { x1: AXIS, y1: HEIGHT, x2: WIDTH, y2: HEIGHT, class: 'axis' }));
  root.append(svg('text', { x: AXIS - 4, y: 12, 'text-anchor': 'end', class: 'tick' }, formatPeak(peak)));
  root.append(svg('text', { x: AXIS - 4, y: HEIGHT, 'text-anchor': 'end', class: 'tick' }, '0'));
  root.append(svg('text', { x: AXIS, y: HEIGHT + 12, class: 'tick' }, '−5 min'));
  root.append(svg('text', { x: WIDTH, y: HEIGHT + 12, 'text-anchor': 'end', class: 'tick' }, `now · ${unit}`));
  stacks.forEach((stack, i) => {
    let y = HEIGHT;
    for (const part of stack) {
      if (part.value <= 0) continue;
      const height = Math.max(1, part.value * scale);
      y -= height;
      root.append(svg('rect', { x: AXIS + i * barWidth + 1, y, width: Math.max(1, barWidth - 2), height, fill: part.color, class: 'bar' }));
    }
  });
  return root;
}

function swatch(color: string): SVGElement {
  const box = svg('svg', { width: 10, height: 10, class: 'swatch' });
  box.append(svg('rect', { width: 10, height: 10, fill: color }));
  return box;
}

function formatPeak(value: number): string {
  return value >= 10 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
}
