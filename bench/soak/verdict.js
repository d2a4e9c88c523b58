/**
 * The soak's verdict over its samples. Growth after warm-up is the least-squares slope of RSS and
 * of open file descriptors over the second half of the run, times the length of that half: what
 * the fitted line says was gained there. Why these limits:
 *  - RSS: a steady proxy's RSS moves by a few MB as the collector works; 16 MB over the second
 *    half is more than that noise in a 2-minute run, and 0.5 MB/min in an hour-long one — a
 *    leak of one journal line (about 1 KB) per request at 50 req/s would gain 180 MB there.
 *  - fds: a request in flight holds up to three (the buyer's socket, the socket to the dealer and
 *    the embedded mock's end of it), and at 50 req/s with the gauntlet's 200 ms latency about ten
 *    are in flight, more while Redis is away: samples move by tens. 20 over the second half
 *    allows that noise, not a descriptor kept per rotation (a rotation every ~25 s: 70 in the
 *    second half of an hour) or per fault change (one every 3 s).
 *  - event-loop delay: p99 over the run after warm-up within 50 ms of what an idle process beside
 *    the proxy sees. The idle process measures the machine: a delay it shows too is the machine's
 *    (CI, beside test files: the proxy 55.5 ms, the idle process about 22), not the proxy's. When
 *    its own p99 passes half the limit (other work is taking the cores), the proxy's delay is
 *    printed but not judged at all, since it would measure the machine, not the proxy.
 */
export const LIMITS = { rssGrowthMb: 16, fdGrowth: 20, loopP99Ms: 50, busyMachineP99Ms: 25 };

/** Least-squares slope of y over x. */
export function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
}

/** Fitted growth of `field` over the samples from `halfMinute` on (x in minutes). */
export function secondHalfGrowth(samples, field, halfMinute) {
  const half = samples.filter((s) => s.minute >= halfMinute);
  if (half.length < 2) return 0;
  const points = half.map((s) => ({ x: s.minute, y: s[field] }));
  return slope(points) * (half.at(-1).minute - half[0].minute);
}

/** Each failed criterion, as a sentence; none when the soak passed. */
export function failures({ samples, halfMinute, lost, duplicated, broken, loopP99Ms, idleLoopP99Ms, auditOk }) {
  const out = [];
  const rss = secondHalfGrowth(samples, 'rssMb', halfMinute);
  const fds = secondHalfGrowth(samples, 'fds', halfMinute);
  if (rss > LIMITS.rssGrowthMb) out.push(`RSS kept growing: +${rss.toFixed(1)} MB over the second half (limit ${LIMITS.rssGrowthMb} MB)`);
  if (fds > LIMITS.fdGrowth) out.push(`open file descriptors kept growing: +${fds.toFixed(1)} over the second half (limit ${LIMITS.fdGrowth})`);
  if (lost > 0) out.push(`${lost} answered requests have no journal line`);
  if (duplicated > 0) out.push(`${duplicated} requests have more than one journal line`);
  if (broken > 0) out.push(`${broken} journal lines are not whole JSON`);
  const loopJudged = idleLoopP99Ms <= LIMITS.busyMachineP99Ms;
  const added = loopP99Ms - idleLoopP99Ms;
  if (loopJudged && added > LIMITS.loopP99Ms)
    out.push(`event-loop delay p99 ${loopP99Ms} ms, ${Math.round(added * 10) / 10} ms past an idle process beside it (limit ${LIMITS.loopP99Ms} ms)`);
  if (!auditOk) out.push('the audit chain does not verify across its files');
  return { out, rss, fds, loopJudged };
}
