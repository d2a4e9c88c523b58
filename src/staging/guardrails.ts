/**
 * Guardrails in AAP terms, read from the journal lines this process writes: each keeps a sliding
 * window of the lines it measures and is judged as each line arrives. A breach is reported once
 * (the caller pulls the safety lever, which halts the fleet); a new scenario starts new windows.
 *
 * `faults: exclude` (the default) leaves out requests a fault was injected into on purpose — a
 * line with `faults` that was not a dry run — so a guardrail watches what the scenario does not
 * explain: the dealer's own failures and the buyer's reaction. `include` judges every request as
 * the buyer saw it.
 */
import { boundReached } from '../common/bound-counts.js';
import type { Guardrail } from '../scenario/types.generated.js';
import type { JournalEntry, RequestObserver } from '../journal/entry.js';

export interface GuardrailBreach {
  name: string;
  metric: Guardrail['metric'];
  /** The value measured over the window, and the limit it crossed. */
  value: number;
  limit: number;
  /** One sentence: "lead_submit_success 0.50 < min 0.95 over 12 requests in 300 s". */
  detail: string;
}

/** Lines kept per window at most: a percentile over more than this is over the newest ones. */
const MAX_WINDOW_LINES = 10_000;

interface Sample {
  t: number;
  entry: JournalEntry;
}

function injectedOnPurpose(e: JournalEntry): boolean {
  return !e.dry_run && (e.faults?.length ?? 0) > 0;
}

/** Which lines a guardrail measures. */
function measures(g: Guardrail, e: JournalEntry): boolean {
  if (g.faults !== 'include' && injectedOnPurpose(e)) return false;
  switch (g.metric) {
    case 'lead_submit_success':
    case 'duplicate_leads':
      return e.skill === 'lead.submit';
    case 'p99_latency_ms':
      return e.skill === g.skill;
    case 'retry_storm_ratio':
      return e.skill !== undefined && e.request_hash !== undefined;
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The busiest buyer's share of requests that repeat one it sent earlier in the window. */
function retryStormRatio(samples: Sample[], minRequests: number): { value: number; n: number } | undefined {
  const byClient = new Map<string, { seen: Set<string>; total: number; repeats: number }>();
  for (const { entry } of samples) {
    let c = byClient.get(entry.client);
    if (!c) byClient.set(entry.client, (c = { seen: new Set(), total: 0, repeats: 0 }));
    const key = `${entry.skill}\u0000${entry.request_hash}`;
    c.total++;
    if (c.seen.has(key)) c.repeats++;
    else c.seen.add(key);
  }
  let worst: { value: number; n: number } | undefined;
  for (const c of byClient.values()) {
    if (c.total < minRequests) continue;
    const value = c.repeats / c.total;
    if (!worst || value > worst.value) worst = { value, n: c.total };
  }
  return worst;
}

class Window {
  private samples: Sample[] = [];
  constructor(readonly g: Guardrail) {}

  add(entry: JournalEntry, now: number): void {
    this.samples.push({ t: now, entry });
    this.trim(now);
  }

  private trim(now: number): void {
    const from = now - (this.g.window_s ?? 300) * 1000;
    let drop = 0;
    while (drop < this.samples.length && this.samples[drop]!.t < from) drop++;
    const over = this.samples.length - drop - MAX_WINDOW_LINES;
    if (over > 0) {
      drop += over;
      boundReached('guardrail_window', over);
    }
    if (drop > 0) this.samples = this.samples.slice(drop);
  }

  judge(): GuardrailBreach | undefined {
    const g = this.g;
    const n = this.samples.length;
    const minRequests = g.min_requests ?? 10;
    const over = `over ${n} requests in ${g.window_s ?? 300} s`;
    const breach = (value: number, limit: number, op: string, round: (v: number) => string): GuardrailBreach => ({
      name: g.name,
      metric: g.metric,
      value,
      limit,
      detail: `${g.metric}${g.skill ? ` (${g.skill})` : ''} ${round(value)} ${op} ${round(limit)} ${over}, faults ${g.faults ?? 'exclude'}d`,
    });
    const two = (v: number) => v.toFixed(2);
    const whole = (v: number) => String(Math.round(v));
    switch (g.metric) {
      case 'duplicate_leads': {
        const dup = this.samples.filter((s) => s.entry.lead_status === 'duplicate').length;
        return dup > g.max! ? breach(dup, g.max!, '>', whole) : undefined;
      }
      case 'lead_submit_success': {
        if (n < minRequests) return undefined;
        const share = this.samples.filter((s) => s.entry.outcome === 'result').length / n;
        return share < g.min! ? breach(share, g.min!, '<', two) : undefined;
      }
      case 'p99_latency_ms': {
        if (n < minRequests) return undefined;
        const p99 = percentile(
          this.samples.map((s) => s.entry.duration_ms),
          99,
        );
        return p99 > g.max! ? breach(p99, g.max!, '>', whole) : undefined;
      }
      case 'retry_storm_ratio': {
        const worst = retryStormRatio(this.samples, minRequests);
        return worst && worst.value > g.max! ? breach(worst.value, g.max!, '>', two) : undefined;
      }
    }
  }
}

/**
 * Watches journal lines against a scenario's guardrails; calls `onBreach` once, with the first
 * guardrail breached, then stops judging (the fleet is halted; a new scenario makes a new watch).
 */
export class GuardrailWatch implements RequestObserver {
  private readonly windows: Window[];
  private tripped = false;

  constructor(
    guardrails: readonly Guardrail[],
    private readonly onBreach: (breach: GuardrailBreach) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = guardrails.map((g) => new Window(g));
  }

  onRequestDone(entry: JournalEntry): void {
    if (this.tripped) return;
    const now = this.now();
    for (const w of this.windows) {
      if (!measures(w.g, entry)) continue;
      w.add(entry, now);
      const breach = w.judge();
      if (breach) {
        this.tripped = true;
        this.onBreach(breach);
        return;
      }
    }
  }
}
