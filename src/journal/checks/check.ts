/**
 * What every report check is: a name, the rule it grades in one sentence, and a pure
 * function from one client's journal to a verdict with evidence. Adding a check means adding
 * one file beside this one and one line in `index.ts`.
 */
import type { Profile } from '../../protocol/codes.js';
import type { JournalEntry } from '../entry.js';
import type { Thresholds } from '../thresholds.js';

export const CHECK_NAMES = [
  'retry-after',
  'non-retryable',
  'backoff',
  'activation',
  'version',
  'idempotency',
  'no-storm',
  'sold-vehicle',
] as const;
/**
 * Checks across dealers (requirement ids AAP-BUYER-101…103), graded only when the journal comes from
 * one proxy in front of several dealers (its lines name a dealer): a one-dealer report is unchanged.
 */
export const DEALER_CHECK_NAMES = ['isolation', 'no-duplicate-lead', 'slow-dealer'] as const;
export type CheckName = (typeof CHECK_NAMES)[number] | (typeof DEALER_CHECK_NAMES)[number];

export type Verdict = 'PASS' | 'FAIL' | 'NOT EXERCISED';

export interface CheckOutcome {
  verdict: Verdict;
  /** Journal ids that prove the verdict (the trigger first, then what the buyer did next). */
  evidence: string[];
  /** One line a person can act on. */
  explanation: string;
}

/** One client's side of the journal, as every check sees it. */
export interface ClientJournal {
  client: string;
  /** The client's JSON-RPC requests in the order they started (agent-card fetches and other GETs left out). */
  requests: readonly JournalEntry[];
  /** The profile the dealer spoke, when the report was told. */
  profile?: Profile;
  /** The AAP extension URI the dealer requires, when the report was told. */
  extensionUri?: string;
  thresholds: Thresholds;
  /** How long the buyer ran, when the exam measured it (slow-dealer grades it against its budget). */
  buyerRunMs?: number;
}

export interface Check {
  name: CheckName;
  /** The rule being graded, as docs and `--help` state it. */
  rule: string;
  grade(journal: ClientJournal): CheckOutcome;
}

export const pass = (evidence: string[], explanation: string): CheckOutcome => ({ verdict: 'PASS', evidence: unique(evidence), explanation });
export const fail = (evidence: string[], explanation: string): CheckOutcome => ({ verdict: 'FAIL', evidence: unique(evidence), explanation });
export const notExercised = (explanation: string): CheckOutcome => ({ verdict: 'NOT EXERCISED', evidence: [], explanation });

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** "1 request" / "3 requests"; irregular nouns name their plural. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
