/**
 * Passive grading (--observe): the report's checks, graded continuously on live traffic, per
 * client key. Each client keeps a bounded window of its latest JSON-RPC lines (in start order, as
 * the checks read them); after traffic, the clients that got new lines are graded once per turn of
 * the event loop, after their replies are out. A result that gains new evidence is a verdict: it
 * is counted, told to the sink (metrics and /events) and kept for GET /report.
 *
 * A FAIL is told at once: it rests on what the buyer did. A PASS may rest on what the buyer has
 * not done yet (it did not come back early, it did not storm), so it is told only once the client
 * has been quiet for `settleMs`; a buyer that does come back early later still gets its FAIL.
 *
 * The checks do not care who produced an error: a dealer's own RATE_LIMITED or INTERNAL_ERROR,
 * journaled from its reply, is graded exactly as an injected one.
 */
import { boundReached } from '../common/bound-counts.js';
import {
  CHECKS,
  CHECK_NAMES,
  resolveThresholds,
  type CheckName,
  type JournalEntry,
  type RequestObserver,
  type Thresholds,
  type Verdict,
} from './report-checks.js';

/** One change in how a client fares on a check. */
export interface VerdictEvent {
  type: 'verdict';
  /** When it was graded, RFC 3339. */
  ts: string;
  check: CheckName;
  client: string;
  verdict: Exclude<Verdict, 'NOT EXERCISED' | 'NOT APPLICABLE'>;
  explanation: string;
  /** Journal ids that prove it (the trigger first, then what the buyer did next). */
  evidence: string[];
}

/** What GET /report adds under `observe` while live grading runs. */
export interface ObservedSection {
  since: string;
  /** Lines kept per client for grading; older ones leave the window. */
  window: number;
  clients: number;
  /** Verdicts so far, by check (what aap_chaos_buyer_check_verdicts_total counts since the last reset). */
  verdicts: Record<string, { PASS: number; FAIL: number }>;
  /** The latest verdicts, oldest first. */
  recent: VerdictEvent[];
}

export interface LiveGraderOptions {
  /** Lines kept per client (default 256). */
  window?: number;
  /** Clients followed at once; the one heard from least recently is forgotten first (default 10 000). */
  maxClients?: number;
  /** Verdicts kept for the report (default 100). */
  recent?: number;
  /** Quiet time after a client's last line before its PASS verdicts are told (default 5 000 ms). */
  settleMs?: number;
}

interface CheckState {
  verdict: Verdict;
  /** Evidence already counted, so one violation is counted once. */
  counted: Set<string>;
}

interface ClientState {
  lines: JournalEntry[];
  checks: Map<CheckName, CheckState>;
  /** performance.now() when its last line arrived. */
  heard: number;
}

const byStart = (a: JournalEntry, b: JournalEntry): number => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class LiveGrader implements RequestObserver {
  private readonly clients = new Map<string, ClientState>();
  private readonly dirty = new Set<string>();
  /** Clients with a PASS not told yet, waiting to be quiet. */
  private readonly unsettled = new Set<string>();
  private readonly sweep: NodeJS.Timeout;
  private readonly settleMs: number;
  private scheduled = false;
  private since = new Date().toISOString();
  private verdicts: Record<string, { PASS: number; FAIL: number }> = {};
  private recent: VerdictEvent[] = [];
  private readonly window: number;
  private readonly maxClients: number;
  private readonly recentCap: number;

  constructor(
    private readonly onVerdict: (event: VerdictEvent) => void,
    private readonly thresholds: () => Partial<Thresholds> | undefined,
    opts: LiveGraderOptions = {},
  ) {
    this.window = opts.window ?? 256;
    this.maxClients = opts.maxClients ?? 10_000;
    this.recentCap = opts.recent ?? 100;
    this.settleMs = opts.settleMs ?? 5_000;
    this.sweep = setInterval(this.settleQuiet, Math.min(1_000, this.settleMs));
    this.sweep.unref();
  }

  /** Stops the sweep that tells settled PASS verdicts. */
  close(): void {
    clearInterval(this.sweep);
  }

  onRequestDone(entry: JournalEntry): void {
    // As the report: agent-card fetches and other non-JSON-RPC traffic are not buyer requests.
    if (entry.method === undefined) return;
    const state = this.clientState(entry.client);
    state.heard = performance.now();
    const lines = state.lines;
    // Lines arrive as replies finish; the checks read them in the order requests started.
    let at = lines.length;
    while (at > 0 && byStart(lines[at - 1]!, entry) > 0) at--;
    lines.splice(at, 0, entry);
    if (lines.length > this.window) {
      const gone = lines.shift()!;
      for (const check of state.checks.values()) check.counted.delete(gone.id);
    }
    this.dirty.add(entry.client);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.gradeDirty);
    }
  }

  /** Forgets every client and verdict (POST /reset); the metric counters keep counting up. */
  clear(): void {
    this.clients.clear();
    this.dirty.clear();
    this.unsettled.clear();
    this.verdicts = {};
    this.recent = [];
    this.since = new Date().toISOString();
  }

  section(): ObservedSection {
    return { since: this.since, window: this.window, clients: this.clients.size, verdicts: structuredClone(this.verdicts), recent: [...this.recent] };
  }

  private clientState(client: string): ClientState {
    let state = this.clients.get(client);
    if (state !== undefined) {
      this.clients.delete(client); // re-inserted below: the map's order is least recently heard first
    } else {
      state = { lines: [], checks: new Map(), heard: 0 };
      if (this.clients.size >= this.maxClients) {
        const oldest = this.clients.keys().next().value!;
        this.clients.delete(oldest);
        this.dirty.delete(oldest);
        this.unsettled.delete(oldest);
        boundReached('observe_clients');
      }
    }
    this.clients.set(client, state);
    return state;
  }

  private readonly gradeDirty = (): void => {
    this.scheduled = false;
    const thresholds = resolveThresholds(this.thresholds());
    for (const client of this.dirty) {
      const state = this.clients.get(client);
      if (state !== undefined) this.grade(client, state, thresholds, false);
    }
    this.dirty.clear();
  };

  private readonly settleQuiet = (): void => {
    if (this.unsettled.size === 0) return;
    const quietSince = performance.now() - this.settleMs;
    let thresholds: Thresholds | undefined;
    for (const client of this.unsettled) {
      const state = this.clients.get(client);
      if (state !== undefined && state.heard > quietSince) continue;
      this.unsettled.delete(client);
      if (state !== undefined) this.grade(client, state, (thresholds ??= resolveThresholds(this.thresholds())), true);
    }
  };

  private grade(client: string, state: ClientState, thresholds: Thresholds, settled: boolean): void {
    const journal = { client, requests: state.lines, thresholds };
    for (const name of CHECK_NAMES) {
      // Live grading sees one proxy's clients; the checks across dealers need the exam's view.
      if (CHECKS[name].acrossDealers) continue;
      const outcome = CHECKS[name].grade(journal);
      let known = state.checks.get(name);
      if (known === undefined) state.checks.set(name, (known = { verdict: 'NOT EXERCISED', counted: new Set() }));
      if (outcome.verdict === 'PASS' && !settled) {
        this.unsettled.add(client);
        continue;
      }
      const changed = outcome.verdict !== known.verdict;
      known.verdict = outcome.verdict;
      if (outcome.verdict === 'NOT EXERCISED' || outcome.verdict === 'NOT APPLICABLE') continue;
      const fresh = outcome.evidence.filter((id) => !known.counted.has(id));
      if (!changed && fresh.length === 0) continue;
      for (const id of fresh) known.counted.add(id);
      this.record({
        type: 'verdict',
        ts: new Date().toISOString(),
        check: name,
        client,
        verdict: outcome.verdict,
        explanation: outcome.explanation,
        evidence: outcome.evidence,
      });
    }
  }

  private record(event: VerdictEvent): void {
    const tally = (this.verdicts[event.check] ??= { PASS: 0, FAIL: 0 });
    tally[event.verdict]++;
    this.recent.push(event);
    if (this.recent.length > this.recentCap) this.recent.shift();
    try {
      this.onVerdict(event);
    } catch (err) {
      process.emitWarning(`aap-chaos: a verdict listener threw: ${(err as Error)?.message ?? String(err)}`);
    }
  }
}
