/**
 * Turns the raw runs into the figures the issue asks for: one row per case, the derived
 * measurements (delay error, SSE first event, RSS growth) and a PASS/MISS line per target.
 * Everything is printed as Markdown so the output can go into docs/performance.md as it is.
 */
import { median } from './stats.js';

/** Requests that did not come back as 2xx: refused, timed out or answered with another status. */
export const failuresOf = (run) => run.non2xx + run.errors + run.timeouts;

/** Microseconds of the serving process's CPU per request in one run (NaN when it was not read). */
export const cpuPerRequestUs = (run) => (run.serverCpuMs === undefined ? NaN : (run.serverCpuMs * 1000) / (run.reqPerSec * (run.durationS ?? NaN)));

/** Median over a case's runs of req/s, p50 and p99 (the middle run damps one noisy run). */
export function aggregate(runs) {
  return {
    cpuUsPerRequest: median(runs.map(cpuPerRequestUs)),
    reqPerSec: median(runs.map((r) => r.reqPerSec)),
    p50: median(runs.map((r) => r.latencyMs.p50)),
    p99: median(runs.map((r) => r.latencyMs.p99)),
    failures: runs.reduce((n, r) => n + failuresOf(r), 0),
  };
}

/** The Node forwarders a user might pick instead of aap-chaos (bench/http-proxy-child.js, bench/mockttp-child.js). */
const NODE_PEERS = ['http-proxy-3', 'mockttp'];

const fmt = (v, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const signed = (v, digits = 2) => (v >= 0 ? `+${fmt(v, digits)}` : fmt(v, digits));
const fmtInt = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
const mb = (bytes) => bytes / (1024 * 1024);

/** Derives every reported figure from the raw results. */
export function derive(results) {
  const byCase = Object.fromEntries(results.cases.map((c) => [c.name, { ...c, ...aggregate(c.runs) }]));
  const direct = byCase['direct'];
  for (const c of Object.values(byCase)) c.ratio = c.fixedRate ? NaN : c.reqPerSec / direct.reqPerSec;
  const ratioTo = (name, base) => byCase[name].reqPerSec / byCase[base].reqPerSec;

  // Paired by round (each delay run against the direct run right before it), then the middle round.
  const delayedRuns = byCase['delay-100ms'].runs;
  const baselineRuns = byCase['direct-200rps'].runs;
  const errorAt = (p) => median(delayedRuns.map((r, i) => r.latencyMs[p] - 100 - baselineRuns[i].latencyMs[p]));
  const delayError = { p50: errorAt('p50'), p99: errorAt('p99') };

  const sse = Object.fromEntries(
    Object.entries(results.sse.samples).map(([name, s]) => {
      const sorted = [...s].sort((a, b) => a - b);
      return [name, { median: median(sorted), p99: sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] }];
    }),
  );
  const rssGrowthMb = Object.fromEntries(results.rss.map((r) => [r.scenario, mb(r.after.rss - r.warm.rss)]));

  const pass = byCase['passthrough'];
  const floor = byCase['undici-floor'];
  const journal = results.journal;
  const journalWhole = journal.fileLines === journal.requests && journal.journalDropped === 0 && journal.eventsReceived === journal.requests;
  const loadSeconds = results.loadTime.servingMs / 1000;
  const rssTargets = results.rss.map((r) => ({
    target: `RSS growth < 30 MB over ${fmtInt(r.requests)} requests, ${r.scenario === 'passthrough.yaml' ? 'pass-through' : 'error path'}`,
    measured: `${fmt(rssGrowthMb[r.scenario], 1)} MB`,
    ok: rssGrowthMb[r.scenario] < 30,
  }));
  // Performance round 2's targets: each path against the Node floor that does the least the same
  // job needs, and untouched traffic past the forwarding floor (docs/performance.md).
  const toErrorFloor = (name) => ratioTo(name, 'error-floor');
  const targets = [
    {
      target: 'injected-error path ≥ 0.75× the plain node:http error server',
      measured: `${fmt(toErrorFloor('error-every-request'))}×`,
      ok: toErrorFloor('error-every-request') >= 0.75,
    },
    {
      target: 'rate_limit refusing most requests ≥ 0.75× the same server',
      measured: `${fmt(toErrorFloor('rate-limit'))}×`,
      ok: toErrorFloor('rate-limit') >= 0.75,
    },
    {
      target: 'require: {extension: true} refusing every request ≥ 0.75× the same server',
      measured: `${fmt(toErrorFloor('require-extension'))}×`,
      ok: toErrorFloor('require-extension') >= 0.75,
    },
    {
      target: 'pass-through ≥ 0.95× the minimal undici forwarder',
      measured: `${fmt(ratioTo('passthrough', 'undici-floor'))}×`,
      ok: ratioTo('passthrough', 'undici-floor') >= 0.95,
    },
    { target: 'pass-through p99 ≤ the undici forwarder p99 + 2 ms', measured: `${signed(pass.p99 - floor.p99)} ms`, ok: pass.p99 - floor.p99 <= 2 },
    {
      target: 'past the floor: pass-through ≥ 1.3× the minimal undici forwarder and ≥ 0.45× direct',
      measured: `${fmt(ratioTo('passthrough', 'undici-floor'))}×, ${fmt(pass.ratio)}× direct`,
      ok: ratioTo('passthrough', 'undici-floor') >= 1.3 && pass.ratio >= 0.45,
    },
    // Round 3: rules that do not match cost nothing measurable (the engine's index, src/engine/match.ts).
    {
      target: '1,000 non-matching rules ≥ 0.97× pass-through',
      measured: `${fmt(ratioTo('rules-1000', 'passthrough'))}× (${fmt(byCase['rules-1000'].cpuUsPerRequest / pass.cpuUsPerRequest)}× its CPU per request)`,
      ok: ratioTo('rules-1000', 'passthrough') >= 0.97,
    },
    ...(byCase['rules-10000']
      ? [
          {
            target: '10,000 non-matching rules ≥ 0.9× pass-through',
            measured: `${fmt(ratioTo('rules-10000', 'passthrough'))}× (${fmt(byCase['rules-10000'].cpuUsPerRequest / pass.cpuUsPerRequest)}× its CPU per request)`,
            ok: ratioTo('rules-10000', 'passthrough') >= 0.9,
          },
        ]
      : []),
    // Round 3: beside the tools a user would pick instead, pass-through stays ahead of every Node peer.
    ...NODE_PEERS.filter((name) => byCase[name]).map((name) => ({
      target: `pass-through ahead of ${byCase[name].label.replace(/^peer: /, '')}`,
      measured: `${fmt(ratioTo('passthrough', name))}× its req/s`,
      ok: ratioTo('passthrough', name) > 1,
    })),
    {
      target: `a scenario of ${fmtInt(results.loadTime.rules)} rules loads in < 2 s`,
      measured: `${fmt(loadSeconds)} s from the file to serving`,
      ok: loadSeconds < 2,
    },
    {
      target: 'error path with --journal FILE and a live /events subscriber ≥ 0.65× the plain node:http error server',
      measured: `${fmt(toErrorFloor('error-journal-events'))}×`,
      ok: toErrorFloor('error-journal-events') >= 0.65,
    },
    {
      target: 'no journal line lost (file and /events)',
      measured: `${fmtInt(journal.requests)} requests, ${fmtInt(journal.fileLines)} lines, ${fmtInt(journal.eventsReceived)} events (${journal.eventsDropped} dropped)`,
      ok: journalWhole,
    },
    ...rssTargets,
    { target: 'injected 100 ms delay within ±2 ms at p50', measured: `${signed(delayError.p50)} ms`, ok: Math.abs(delayError.p50) <= 2 },
    { target: 'injected 100 ms delay within ±5 ms at p99', measured: `${signed(delayError.p99)} ms`, ok: Math.abs(delayError.p99) <= 5 },
    {
      target: 'SSE first event within 2 ms of direct (median)',
      measured: `${signed(sse.proxy.median - sse.direct.median)} ms (p99 ${signed(sse.proxy.p99 - sse.direct.p99)} ms)`,
      ok: sse.proxy.median - sse.direct.median <= 2,
    },
  ];
  return { byCase, delayError, sse, rssGrowthMb, targets };
}

/** The rows of the same run a user compares aap-chaos with: the README's Performance table. */
const BESIDE_THE_PEERS = [
  ['direct', 'direct to the dealer'],
  ['nginx', 'nginx reverse proxy (C, 1 worker, keep-alive upstream)'],
  ['undici-floor', 'floor: minimal undici forwarder'],
  ['passthrough', '**aap-chaos pass-through**'],
  ['http-proxy-3', 'http-proxy-3 forwarding'],
  ['mockttp', 'mockttp `thenForwardTo`'],
  ['error-floor', 'floor: plain node:http INTERNAL_ERROR server'],
  ['error-every-request', '**aap-chaos error path** (INTERNAL_ERROR on every request)'],
];

/** aap-chaos's pass-through and error path beside the tools a user would pick instead, and the floors, from one run. */
export function peersTable(byCase) {
  const lines = ['| beside the peers (one run) | req/s | ratio to direct | p99 ms | server CPU µs/req | failed |', '|---|---:|---:|---:|---:|---:|'];
  for (const [name, label] of BESIDE_THE_PEERS) {
    const c = byCase[name];
    if (!c) continue;
    lines.push(`| ${label} | ${fmtInt(c.reqPerSec)} | ${fmt(c.ratio)}× | ${fmt(c.p99)} | ${fmt(c.cpuUsPerRequest, 1)} | ${c.failures} |`);
  }
  return lines;
}

export function formatReport(results, derived) {
  const { byCase, delayError, sse, targets } = derived;
  const lines = [];
  lines.push(
    `${results.mode === 'quick' ? 'Quick smoke run' : 'Full run'}: ${results.runsPerCase} × ${results.secondsPerRun} s per case, ${results.connections} connections, ${results.date}`,
  );
  lines.push(
    `Machine: ${results.machine.cpuModel}, ${results.machine.cores} cores, ${results.machine.memGb} GB; Node ${results.node}; ${results.loadTool}; load average at start ${results.loadAverageAtStart.join(' / ')}`,
  );
  if (!results.nginx) lines.push('nginx is not installed: its reference row is left out (apt-get install nginx).');
  lines.push('');
  lines.push('| case | req/s | p50 ms | p99 ms | ratio to direct | server CPU µs/req | failed requests |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const c of Object.values(byCase)) {
    lines.push(
      `| ${c.label} | ${fmtInt(c.reqPerSec)} | ${fmt(c.p50)} | ${fmt(c.p99)} | ${c.fixedRate ? '(fixed rate)' : `${fmt(c.ratio)}×`} | ${fmt(c.cpuUsPerRequest, 1)} | ${c.failures} |`,
    );
  }
  lines.push('');
  lines.push('"failed requests" counts replies that were not 2xx; the refusing cases answer with the status their envelope carries.');
  lines.push(
    '"server CPU µs/req" is the CPU (user and system, every thread) of the process serving the case, per request: the dealer for the direct rows, the proxy or the floor for the others.',
  );
  lines.push('');
  lines.push('| CPU per request, against its floor | the case | its floor | ratio |');
  lines.push('|---|---:|---:|---:|');
  for (const [name, floorName] of [
    ['error-every-request', 'error-floor'],
    ['rate-limit', 'error-floor'],
    ['require-extension', 'error-floor'],
    ['error-journal-events', 'error-floor'],
    ['passthrough', 'undici-floor'],
  ]) {
    const c = byCase[name];
    const f = byCase[floorName];
    if (!c || !f) continue;
    lines.push(`| ${c.label} | ${fmt(c.cpuUsPerRequest, 1)} µs | ${fmt(f.cpuUsPerRequest, 1)} µs | ${fmt(c.cpuUsPerRequest / f.cpuUsPerRequest)}× |`);
  }
  lines.push('');
  lines.push(...peersTable(byCase));
  lines.push('');
  lines.push('| measurement | p50 / median | p99 |');
  lines.push('|---|---:|---:|');
  lines.push(`| injected-delay error (observed − 100 ms − direct at 200 req/s, same round) | ${fmt(delayError.p50)} ms | ${fmt(delayError.p99)} ms |`);
  lines.push(`| SSE first event, direct (${results.sse.streams} streams) | ${fmt(sse.direct.median)} ms | ${fmt(sse.direct.p99)} ms |`);
  lines.push(`| SSE first event, through the proxy (${results.sse.streams} streams) | ${fmt(sse.proxy.median)} ms | ${fmt(sse.proxy.p99)} ms |`);
  lines.push(
    `| pass-through against the minimal undici forwarder of the same run | ${fmt(byCase['passthrough'].reqPerSec / byCase['undici-floor'].reqPerSec)}× its req/s | ${signed(byCase['passthrough'].p99 - byCase['undici-floor'].p99)} ms p99 |`,
  );
  lines.push(
    `| error path against the plain node:http error server of the same run | ${fmt(byCase['error-every-request'].reqPerSec / byCase['error-floor'].reqPerSec)}× its req/s | ${signed(byCase['error-every-request'].p99 - byCase['error-floor'].p99)} ms p99 |`,
  );
  lines.push('');
  for (const rss of results.rss) {
    const trail = rss.steps.map((s) => `${fmt(mb(s.memory.rss), 1)} MB after ${fmtInt(s.requests)}`).join(', ');
    lines.push(
      `RSS of a fresh proxy (${rss.scenario}): ${fmt(mb(rss.idle.rss), 1)} MB idle, ${fmt(mb(rss.warm.rss), 1)} MB after warm-up, then ${trail} requests (heap used ${fmt(mb(rss.warm.heapUsed), 1)} → ${fmt(mb(rss.after.heapUsed), 1)} MB).`,
    );
  }
  lines.push('');
  lines.push('| target | measured | result |');
  lines.push('|---|---|---|');
  for (const t of targets) lines.push(`| ${t.target} | ${t.measured} | ${t.ok ? 'met' : 'NOT MET'} |`);
  const missed = targets.filter((t) => !t.ok).length;
  lines.push('');
  lines.push(missed === 0 ? `All ${targets.length} targets met.` : `${targets.length - missed} of ${targets.length} targets met; ${missed} not met.`);
  return lines.join('\n');
}
