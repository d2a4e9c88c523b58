/**
 * How often each bound on what the proxy keeps was reached: every table, ring and cache that grows
 * with traffic forgets (or refuses) past a fixed size, and says so here, so `/metrics` shows it as
 * `aap_chaos_bound_reached_total{bound="…"}` (docs/reliability.md, "Bounded for days", lists each
 * bound). Counting costs the request path one increment of a plain number. The counts are the
 * process's: several runtimes in one process (a test suite) share them.
 */

/** Every bound counted, by the name the metric's label gives it. */
export const BOUNDS = [
  /** The journal ring forgot its oldest line (--journal-ring entries, or its byte budget). */
  'journal_ring',
  /** A session was forgotten because 1 000 others were in use. */
  'sessions',
  /** A rule forgot its least recently seen key (10 000 keys per rule). */
  'rule_keys',
  /** The rule index did not keep the candidates of a (method, skill) pair past 1 024 pairs. */
  'rule_index_pairs',
  /** The card history forgot its oldest card (64 kept). */
  'card_history',
  /** An /events client was refused: 64 were connected. */
  'events_clients',
  /** Live grading (--observe) forgot its least recently heard client (10 000 kept). */
  'observe_clients',
  /** A guardrail's window forgot lines past 10 000 within its time span. */
  'guardrail_window',
  /** The in-memory audit ring (GET /audit) forgot its oldest entry (10 000 kept). */
  'audit_ring',
  /** The fleet's audit stream in Redis passed its MAXLEN (about 100 000) and was trimmed. */
  'audit_stream',
  /** An exchange was not recorded: the recording reached --record-max-bytes. */
  'recording',
  /** A metric met a new label value past its limit of label sets, and counted it as "_other". */
  'metric_label_sets',
  /** The embedded mock dealer forgot its oldest lead, booking or task. */
  'mock_store',
] as const;

export type BoundName = (typeof BOUNDS)[number];

const counts: Record<BoundName, number> = Object.fromEntries(BOUNDS.map((b) => [b, 0])) as Record<BoundName, number>;

/** One item forgotten or refused because `bound` was reached. */
export function boundReached(bound: BoundName, count = 1): void {
  counts[bound] += count;
}

/** The counts so far, by bound. */
export function boundCounts(): Readonly<Record<BoundName, number>> {
  return counts;
}
