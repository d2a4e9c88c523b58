/**
 * What every report check is: the seed requirement it enforces (a stable id, the sentence it
 * rests on, MUST or SHOULD, the profiles it applies to), the rule it grades in one sentence, and
 * a pure function from one client's journal to a verdict with evidence. Its name is its key in
 * `CHECKS` (`index.ts`).
 */
import type { Profile } from '../../protocol/codes.js';
import type { JournalEntry } from '../../journal/entry.js';
import type { Thresholds } from '../thresholds.js';

/**
 * NOT EXERCISED: the run never created the condition the check is about. NOT APPLICABLE: the
 * buyer never called the skill the check is about, so no run could have.
 */
export type Verdict = 'PASS' | 'FAIL' | 'NOT EXERCISED' | 'NOT APPLICABLE';

/** The seed's obligation on buyers that a check enforces. */
export interface Requirement {
  /** Stable: `AAP-BUYER-NNN`, never reused or renumbered. */
  id: string;
  level: 'MUST' | 'SHOULD';
  /** The envelope profiles under which the requirement holds. */
  profiles: readonly Profile[];
  /** Where the seed says it: the section of the AAP error contract, and the words that bind the buyer. */
  seed: { section: string; quote: string };
}

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
  /** The client's agent-card fetches in the order they started; absent where only JSON-RPC lines are kept (live grading). */
  cards?: readonly JournalEntry[];
  /** The profile the dealer spoke, when the report was told. */
  profile?: Profile;
  /** The AAP extension URI the dealer requires, when the report was told. */
  extensionUri?: string;
  thresholds: Thresholds;
  /** How long the buyer ran, when the exam measured it (slow-dealer grades it against its budget). */
  buyerRunMs?: number;
}

export interface Check {
  requirement: Requirement;
  /** The skills the check is about; a buyer that called none of them gets NOT APPLICABLE. Absent: any request. */
  skills?: readonly string[];
  /**
   * Graded only across dealers: when the journal comes from one proxy in front of several dealers
   * (its lines name a dealer); a one-dealer report does not list it.
   */
  acrossDealers?: true;
  /**
   * Graded only when a run asks for it (`exam --card-trust`): an exam shows and requires it only
   * then. The report grades it when `shownBy` finds its condition in the journal (signed cards),
   * and leaves it out otherwise, as it leaves out the checks across dealers for one dealer.
   */
  optIn?: { shownBy(entries: readonly JournalEntry[]): boolean };
  /** The rule being graded, as docs and `--help` state it. */
  rule: string;
  grade(journal: ClientJournal): CheckOutcome;
}

export const pass = (evidence: string[], explanation: string): CheckOutcome => ({ verdict: 'PASS', evidence: unique(evidence), explanation });
export const fail = (evidence: string[], explanation: string): CheckOutcome => ({ verdict: 'FAIL', evidence: unique(evidence), explanation });
export const notExercised = (explanation: string): CheckOutcome => ({ verdict: 'NOT EXERCISED', evidence: [], explanation });
export const notApplicable = (explanation: string): CheckOutcome => ({ verdict: 'NOT APPLICABLE', evidence: [], explanation });

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** "1 request" / "3 requests"; irregular nouns name their plural. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
