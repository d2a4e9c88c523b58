/** Order statistics shared by the load child, the SSE client and the report. */

/** The value below which `p` percent of the sorted samples fall (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export function median(values) {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Count, mean, p50, p99 and max of latency samples in milliseconds. */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1);
  return { count: sorted.length, mean, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
}
