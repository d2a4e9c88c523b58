/**
 * Turns the raw runs into the figures the issue asks for: one row per case, the derived
 * measurements (delay error, SSE first event, RSS growth) and a PASS/MISS line per target.
 * Everything is printed as Markdown so the output can go into docs/performance.md as it is.
 */
import { median } from './stats.js';

/** Requests that did not come back as 2xx: refused, timed out or answered with another status. */
export const failuresOf = (run) => run.non2xx + run.errors + run.timeouts;

/** Median over a case's runs of req/s, p50 and p99 (the middle run damps one noisy run). */
export function aggregate(runs) {
  return {
    reqPerSec: median(runs.map((r) => r.reqPerSec)),
    p50: median(runs.map((r) => r.latencyMs.p50)),
    p99: median(runs.map((r) => r.latencyMs.p99)),
    failures: runs.reduce((n, r) => n + failuresOf(r), 0),
  };
}

const fmt = (v, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const signed = (v, digits = 2) => (v >= 0 ? `+${fmt(v, digits)}` : fmt(v, digits));
const fmtInt = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
const mb = (bytes) => bytes / (1024 * 1024);

/** Derives every reported figure from the raw results. */
export function derive(results) {
  const byCase = Object.fromEntries(results.cases.map((c) => [c.name, { ...c, ...aggregate(c.runs) }]));
  const direct = byCase['direct'];
  for (const c of Object.values(byCase)) c.ratio = c.fixedRate ? NaN : c.reqPerSec / direct.reqPerSec;

  // Paired by round (each delay run against the direct run right before it), then the middle round.
  const delayedRuns = byCase['delay-100ms'].runs;
  const baselineRuns = byCase['direct-200rps'].runs;
  const errorAt = (p) => median(delayedRuns.map((r, i) => r.latencyMs[p] - 100 - baselineRuns[i].latencyMs[p]));
  const delayError = { p50: errorAt('p50'), p99: errorAt('p99') };

  const sse = Object.fromEntries(Object.entries(results.sse.samples).map(([name, s]) => {
    const sorted = [...s].sort((a, b) => a - b);
    return [name, { median: median(sorted), p99: sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] }];
  }));
  const rss = results.rss;
  const rssGrowthMb = mb(rss.after.rss - rss.warm.rss);

  const pass = byCase['passthrough'];
  const targets = [
    { target: 'pass-through ≥ 0.5× direct req/s', measured: `${fmt(pass.ratio)}×`, ok: pass.ratio >= 0.5 },
    { target: 'pass-through p99 ≤ direct p99 + 5 ms', measured: `${signed(pass.p99 - direct.p99)} ms`, ok: pass.p99 - direct.p99 <= 5 },
    { target: '1,000 non-matching rules within 10% of pass-through req/s', measured: `${fmt(byCase['rules-1000'].reqPerSec / pass.reqPerSec)}× pass-through`, ok: byCase['rules-1000'].reqPerSec >= 0.9 * pass.reqPerSec },
    { target: 'injected-error path ≥ 1.0× direct req/s', measured: `${fmt(byCase['error-every-request'].ratio)}×`, ok: byCase['error-every-request'].ratio >= 1.0 },
    { target: 'injected 100 ms delay accurate to ±5 ms at p99', measured: `${signed(delayError.p99)} ms (p50 ${signed(delayError.p50)} ms)`, ok: Math.abs(delayError.p99) <= 5 },
    { target: 'SSE first event within 2 ms of direct (median)', measured: `${signed(sse.proxy.median - sse.direct.median)} ms (p99 ${signed(sse.proxy.p99 - sse.direct.p99)} ms)`, ok: sse.proxy.median - sse.direct.median <= 2 },
    { target: `RSS growth < 30 MB over ${fmtInt(rss.requests)} requests`, measured: `${fmt(rssGrowthMb, 1)} MB`, ok: rssGrowthMb < 30 },
  ];
  return { byCase, delayError, sse, rssGrowthMb, targets };
}

export function formatReport(results, derived) {
  const { byCase, delayError, sse, targets } = derived;
  const rss = results.rss;
  const lines = [];
  lines.push(`${results.mode === 'quick' ? 'Quick smoke run' : 'Full run'}: ${results.runsPerCase} × ${results.secondsPerRun} s per case, ${results.connections} connections, ${results.date}`);
  lines.push(`Machine: ${results.machine.cpuModel}, ${results.machine.cores} cores, ${results.machine.memGb} GB; Node ${results.node}; ${results.loadTool}; load average at start ${results.loadAverageAtStart.join(' / ')}`);
  lines.push('');
  lines.push('| case | req/s | p50 ms | p99 ms | ratio to direct | failed requests |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const c of Object.values(byCase)) {
    lines.push(`| ${c.label} | ${fmtInt(c.reqPerSec)} | ${fmt(c.p50)} | ${fmt(c.p99)} | ${c.fixedRate ? '(fixed rate)' : `${fmt(c.ratio)}×`} | ${c.failures} |`);
  }
  lines.push('');
  lines.push('| measurement | p50 / median | p99 |');
  lines.push('|---|---:|---:|');
  lines.push(`| injected-delay error (observed − 100 ms − direct at 200 req/s, same round) | ${fmt(delayError.p50)} ms | ${fmt(delayError.p99)} ms |`);
  lines.push(`| SSE first event, direct (${results.sse.streams} streams) | ${fmt(sse.direct.median)} ms | ${fmt(sse.direct.p99)} ms |`);
  lines.push(`| SSE first event, through the proxy (${results.sse.streams} streams) | ${fmt(sse.proxy.median)} ms | ${fmt(sse.proxy.p99)} ms |`);
  const floor = byCase['undici-floor'];
  if (floor) lines.push(`| pass-through against the minimal undici forwarder of the same run | ${fmt(byCase['passthrough'].reqPerSec / floor.reqPerSec)}× its req/s | ${signed(byCase['passthrough'].p99 - floor.p99)} ms p99 |`);
  lines.push('');
  const trail = rss.steps.map((s) => `${fmt(mb(s.memory.rss), 1)} MB after ${fmtInt(s.requests)}`).join(', ');
  lines.push(`RSS of a fresh passthrough proxy: ${fmt(mb(rss.idle.rss), 1)} MB idle, ${fmt(mb(rss.warm.rss), 1)} MB after warm-up, then ${trail} requests (heap used ${fmt(mb(rss.warm.heapUsed), 1)} → ${fmt(mb(rss.after.heapUsed), 1)} MB).`);
  lines.push('');
  lines.push('| target | measured | result |');
  lines.push('|---|---|---|');
  for (const t of targets) lines.push(`| ${t.target} | ${t.measured} | ${t.ok ? 'PASS' : 'MISS'} |`);
  return lines.join('\n');
}
