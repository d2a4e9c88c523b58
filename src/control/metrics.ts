/**
 * Prometheus metrics, in a registry of their own (never prom-client's global one, so several
 * instances in one process — a test suite — do not collide). Fed from the journal line of every
 * request; the cost on the request path is a few plain increments (see TallyCounter).
 */
import { Counter, Gauge, Histogram, Registry, type CounterConfiguration } from 'prom-client';
import type { ScenarioEngine } from '../engine/decision.js';
import type { JournalEntry } from '../journal/entry.js';
import type { RequestObserver } from '../journal/entry.js';
import { A2A_METHODS, AAP_SKILLS } from '../protocol/codes.js';
import { BOUNDS, boundCounts, boundReached } from '../common/bound-counts.js';

const KNOWN_METHODS: ReadonlySet<string> = new Set(A2A_METHODS);
const KNOWN_SKILLS: ReadonlySet<string> = new Set(AAP_SKILLS);

/**
 * Label sets a metric keeps. Rule ids and guardrail names come from scenarios, and a proxy that
 * swaps scenarios for days would meet new ones without end: past this many sets, a new one is
 * counted under "_other" (and in aap_chaos_bound_reached_total{bound="metric_label_sets"}).
 */
export const MAX_LABEL_SETS = 2_000;
export const OTHER_LABEL = '_other';

/** The label set to count under: the one given while there is room, else "_other" in every label. */
class LabelSets<L extends string> {
  private readonly seen = new Set<string>();
  private readonly other: Record<L, string>;

  constructor(private readonly names: readonly L[]) {
    this.other = Object.fromEntries(names.map((n) => [n, OTHER_LABEL])) as Record<L, string>;
  }

  of(labels: Record<L, string>): Record<L, string> {
    const key = this.names.map((n) => labels[n]).join('\u0000');
    if (this.seen.has(key)) return labels;
    if (this.seen.size < MAX_LABEL_SETS) {
      this.seen.add(key);
      return labels;
    }
    boundReached('metric_label_sets');
    return this.other;
  }
}

/**
 * A counter counted in plain numbers, one per label set, and handed to prom-client only when it
 * collects (a scrape of /metrics): a request costs one map lookup, and prom-client's label work
 * (hashing the labels on every increment) is done per scrape, for the label sets that changed.
 */
class TallyCounter<L extends string> {
  private readonly tallies = new Map<string, { labels: Record<L, string>; count: number; reported: number }>();

  constructor(config: CounterConfiguration<L>) {
    const tallies = this.tallies;
    new Counter<L>({
      ...config,
      collect() {
        for (const tally of tallies.values()) {
          if (tally.count === tally.reported) continue;
          this.inc(tally.labels, tally.count - tally.reported);
          tally.reported = tally.count;
        }
      },
    });
  }

  /** Counts one for the label set `key` names; false when the set is new (then `start` counts it). */
  inc(key: string): boolean {
    const tally = this.tallies.get(key);
    if (tally) tally.count++;
    return tally !== undefined;
  }

  /** Counts one for a label set seen for the first time; past MAX_LABEL_SETS, under "_other". */
  start(key: string, labels: Record<L, string>): void {
    if (this.tallies.size < MAX_LABEL_SETS) {
      this.tallies.set(key, { labels, count: 1, reported: 0 });
      return;
    }
    boundReached('metric_label_sets');
    const other = this.tallies.get(OTHER_LABEL);
    if (other) other.count++;
    else
      this.tallies.set(OTHER_LABEL, {
        labels: Object.fromEntries(Object.keys(labels).map((n) => [n, OTHER_LABEL])) as Record<L, string>,
        count: 1,
        reported: 0,
      });
  }
}

export class ChaosMetrics implements RequestObserver {
  readonly registry = new Registry();
  private readonly requests: TallyCounter<'method' | 'skill' | 'outcome'>;
  private readonly faults: TallyCounter<'rule' | 'effect'>;
  /** Only lines that name a dealer (one proxy in front of several) are counted here. */
  private readonly dealerRequests: TallyCounter<'dealer' | 'outcome'>;
  private readonly dealerFaults: TallyCounter<'dealer' | 'rule' | 'effect'>;
  private readonly overflow: Counter<'rule'>;
  private readonly upstreamLatency: Histogram;
  private readonly journalDrops: Counter<'sink'>;
  private readonly suspendedRules: Counter<'rule'>;
  private readonly guardrailBreaches: Counter<'guardrail'>;
  private readonly dealerViolations: Counter<'rule' | 'severity'>;
  private readonly spansDropped: Counter<'reason'>;
  private readonly buyerVerdicts: Counter<'check' | 'verdict'>;
  private readonly rotations: Counter<'file'>;
  private readonly ruleLabels = new LabelSets(['rule'] as const);
  private readonly guardrailLabels = new LabelSets(['guardrail'] as const);

  constructor(private readonly currentEngine: () => ScenarioEngine | undefined) {
    const registers = [this.registry];
    this.requests = new TallyCounter({
      name: 'aap_chaos_requests_total',
      help: 'Requests answered, by JSON-RPC method, AAP skill and outcome (dealer, injected, proxy, aborted).',
      labelNames: ['method', 'skill', 'outcome'],
      registers,
    });
    this.faults = new TallyCounter({
      name: 'aap_chaos_faults_injected_total',
      help: 'Effects that acted on requests, by rule id and effect, as the journal line records them (dry-run requests are not counted).',
      labelNames: ['rule', 'effect'],
      registers,
    });
    // Dealer names come from the command line (at most 64), never from the network.
    this.dealerRequests = new TallyCounter({
      name: 'aap_chaos_dealer_requests_total',
      help: 'With several dealers behind the proxy: requests answered, by dealer name and outcome (dealer, injected, proxy, aborted).',
      labelNames: ['dealer', 'outcome'],
      registers,
    });
    this.dealerFaults = new TallyCounter({
      name: 'aap_chaos_dealer_faults_injected_total',
      help: 'With several dealers behind the proxy: effects that acted, by dealer name, rule id and effect.',
      labelNames: ['dealer', 'rule', 'effect'],
      registers,
    });
    this.overflow = new Counter({
      name: 'aap_chaos_faults_overflow_total',
      help: 'Faults not injected because max_active_faults were already in progress, by rule id.',
      labelNames: ['rule'],
      registers,
    });
    this.upstreamLatency = new Histogram({
      name: 'aap_chaos_upstream_latency_seconds',
      help: "Time until the dealer's response headers arrived.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    const engineOf = this.currentEngine;
    new Gauge({
      name: 'aap_chaos_active_faults',
      help: 'Injected faults in progress now (what max_active_faults caps).',
      registers,
      collect() {
        this.set(engineOf()?.activeFaults() ?? 0);
      },
    });
    this.dealerViolations = new Counter({
      name: 'aap_chaos_dealer_violations_total',
      help: 'Conformance rules the dealer broke in its replies (with --check-dealer), by rule id and severity.',
      labelNames: ['rule', 'severity'],
      registers,
    });
    this.journalDrops = new Counter({
      name: 'aap_chaos_journal_dropped_total',
      help: 'Journal lines that did not reach a sink: the JSONL file (disk too slow or failing) or a slow /events client.',
      labelNames: ['sink'],
      registers,
    });
    this.spansDropped = new Counter({
      name: 'aap_chaos_spans_dropped_total',
      help: 'Trace spans that never reached the collector (--otlp-endpoint), by reason: queue_full, export_failed, shutdown.',
      labelNames: ['reason'],
      registers,
    });
    this.buyerVerdicts = new Counter({
      name: 'aap_chaos_buyer_check_verdicts_total',
      help: "Verdicts of the live grading (--observe), by report check and verdict: one each time a client's result for a check gains new evidence.",
      labelNames: ['check', 'verdict'],
      registers,
    });
    this.suspendedRules = new Counter({
      name: 'aap_chaos_rules_suspended_total',
      help: 'Requests on which a rule needing shared state did not fire because the state store (Redis) could not be reached, by rule id.',
      labelNames: ['rule'],
      registers,
    });
    this.rotations = new Counter({
      name: 'aap_chaos_file_rotations_total',
      help: 'Times a file was rotated because it reached its size limit (--journal-max-bytes, --audit-max-bytes), by file: journal, audit.',
      labelNames: ['file'],
      registers,
    });
    // What each bound's series has been told so far; every bound shows from the first scrape, at
    // zero when never reached, so a dashboard can tell "never reached" from "not counted".
    const reportedBounds = new Map<string, number>(BOUNDS.map((b) => [b, 0]));
    new Counter({
      name: 'aap_chaos_bound_reached_total',
      help: 'Items forgotten or refused because a bound on what the proxy keeps was reached, by bound (docs/reliability.md, "Bounded for days"); counted per process.',
      labelNames: ['bound'],
      registers,
      collect() {
        // The counts only grow: the counter is brought up to them at each scrape.
        const counts = boundCounts();
        for (const bound of BOUNDS) {
          this.inc({ bound }, counts[bound] - reportedBounds.get(bound)!);
          reportedBounds.set(bound, counts[bound]);
        }
      },
    });
    this.guardrailBreaches = new Counter({
      name: 'aap_chaos_guardrail_breaches_total',
      help: "Scenario guardrails this replica saw breached (each pulled the fleet's safety lever), by guardrail name.",
      labelNames: ['guardrail'],
      registers,
    });
  }

  /** The counters read neither the request facts nor the line's text. */
  readsWholeEntry(): boolean {
    return false;
  }

  onRequestDone(entry: JournalEntry): void {
    const outcome = entry.aborted ? 'aborted' : entry.source;
    // Method and skill come from buyers: names outside the protocol's own collapse into "other",
    // so a buyer cannot grow the label set without bound.
    const method = entry.method === undefined ? entry.http_method : KNOWN_METHODS.has(entry.method) ? entry.method : 'other';
    const skill = entry.skill === undefined ? '' : KNOWN_SKILLS.has(entry.skill) ? entry.skill : 'other';
    const requestKey = `${method}\u0000${skill}\u0000${outcome}`;
    if (!this.requests.inc(requestKey)) this.requests.start(requestKey, { method, skill, outcome });
    if (entry.upstream_ms !== undefined) this.upstreamLatency.observe(entry.upstream_ms / 1000);
    if (entry.conformance) for (const v of entry.conformance) this.dealerViolations.inc({ rule: v.rule, severity: v.severity });
    if (entry.suspended) for (const rule of entry.suspended) this.suspendedRules.inc(this.ruleLabels.of({ rule }));
    const dealer = entry.dealer;
    if (dealer !== undefined) {
      const dealerKey = `${dealer}\u0000${outcome}`;
      if (!this.dealerRequests.inc(dealerKey)) this.dealerRequests.start(dealerKey, { dealer, outcome });
    }
    if (entry.dry_run || !entry.faults) return;
    for (const { rule, effect } of entry.faults) {
      const faultKey = `${rule}\u0000${effect}`;
      if (!this.faults.inc(faultKey)) this.faults.start(faultKey, { rule, effect });
      if (dealer === undefined) continue;
      const dealerFaultKey = `${dealer}\u0000${faultKey}`;
      if (!this.dealerFaults.inc(dealerFaultKey)) this.dealerFaults.start(dealerFaultKey, { dealer, rule, effect });
    }
  }

  /** A fault max_active_faults refused (the engine tells, as it decides). */
  faultOverflowed(rule: string): void {
    this.overflow.inc(this.ruleLabels.of({ rule }));
  }

  guardrailBreached(guardrail: string): void {
    this.guardrailBreaches.inc(this.guardrailLabels.of({ guardrail }));
  }

  spanDropped(reason: string, count: number): void {
    this.spansDropped.inc({ reason }, count);
  }

  buyerVerdict(check: string, verdict: string): void {
    this.buyerVerdicts.inc({ check, verdict });
  }

  fileRotated(file: 'journal' | 'audit'): void {
    this.rotations.inc({ file });
  }

  journalDropped(sink: 'file' | 'events', count = 1): void {
    this.journalDrops.inc({ sink }, count);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
