/**
 * The buyer-resilience report: every check of `checks/` graded for every client key in a
 * journal. The `aap-chaos report` command that prints it lives in report-command.ts.
 */
import type { Profile } from '../protocol/codes.js';
import { CHECK_NAMES, CHECKS, type Check, type CheckName, type CheckOutcome, type ClientJournal, type Verdict } from './checks/index.js';
import { gradePerDealer } from './checks/per-dealer.js';
import type { JournalEntry } from '../journal/entry.js';
import { isAgentCardPath } from '../protocol/agent-card.js';
import { isForgedSignatureState } from '../protocol/card-signature.js';
import { dealerConformanceSection, type DealerConformanceSection } from './dealer-conformance.js';
import { resolveThresholds, type Thresholds } from './thresholds.js';

export type { CheckName, Verdict } from './checks/index.js';

export interface ReportOptions {
  /** Overrides the profile each journal line records; `version` is only graded under 2.0. */
  profile?: Profile;
  /** Overrides the URI each -32008 named (and the one each line records as in force) for `activation`. */
  extensionUri?: string;
  thresholds?: Partial<Thresholds>;
  /** How long the buyer ran (the exam knows; slow-dealer uses it instead of the journal's span). */
  buyerRunMs?: number;
}

export interface CheckResult {
  check: CheckName;
  /** The seed requirement the check enforces (`AAP-BUYER-NNN`). */
  id: string;
  client: string;
  verdict: Verdict;
  /** Journal ids that prove the verdict. */
  evidence: string[];
  /** One line a person can act on. */
  explanation: string;
}

export interface Report {
  generated_at: string;
  /**
   * What the clients are keyed by, as the journal lines record it: `ip`, `header:NAME` (values
   * hashed), `mixed` when lines disagree, or `unknown` for lines that do not say.
   */
  client_key: string;
  clients: string[];
  /** One result per client and check, clients in sorted order, checks in their fixed order. */
  checks: CheckResult[];
  summary: { pass: number; fail: number; not_exercised: number; not_applicable: number };
  /** False when any check failed. */
  ok: boolean;
  /** What --check-dealer found in the dealer's replies; absent when the run did not check. Never changes `ok`. */
  dealer_conformance?: DealerConformanceSection;
}

/** Groups JSON-RPC requests by client, each group in start order (ULIDs break ties). */
function requestsByClient(entries: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  // Agent-card fetches and other non-JSON-RPC traffic are not buyer requests to grade, and a
  // client that sent nothing else (a card fetch without the client-key header) is no client.
  return byClientInStartOrder(entries.filter((e) => e.method !== undefined));
}

/** Each client's agent-card fetches, in start order: what card-trust reads. */
function cardsByClient(entries: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  return byClientInStartOrder(entries.filter((e) => e.http_method === 'GET' && isAgentCardPath(e.path)));
}

function byClientInStartOrder(entries: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  const byClient = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    let list = byClient.get(entry.client);
    if (list === undefined) byClient.set(entry.client, (list = []));
    list.push(entry);
  }
  for (const list of byClient.values()) list.sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return byClient;
}

/**
 * The clients to grade: those that sent JSON-RPC requests, and those that were served a forged
 * card and sent nothing more (a buyer that refused the card is graded for refusing it).
 */
function clientsOf(requests: Map<string, JournalEntry[]>, cards: Map<string, JournalEntry[]>): string[] {
  const refused = [...cards].filter(([client, list]) => !requests.has(client) && list.some((c) => isForgedSignatureState(c.card_signatures)));
  return [...requests.keys(), ...refused.map(([client]) => client)].sort();
}

export function buildReport(entries: JournalEntry[], opts: ReportOptions = {}): Report {
  const thresholds = resolveThresholds(opts.thresholds);
  const byClient = requestsByClient(entries);
  const cards = cardsByClient(entries);
  const clients = clientsOf(byClient, cards);
  const checks: CheckResult[] = [];
  // Several dealers: the one-dealer checks grade each dealer apart, then the checks across dealers run.
  const severalDealers = entries.some((e) => e.dealer !== undefined);
  const names = CHECK_NAMES.filter((name) => (severalDealers || !CHECKS[name].acrossDealers) && (CHECKS[name].optIn?.shownBy(entries) ?? true));
  for (const client of clients) {
    const journal: ClientJournal = {
      client,
      requests: byClient.get(client) ?? [],
      cards: cards.get(client) ?? [],
      profile: opts.profile,
      extensionUri: opts.extensionUri,
      thresholds,
      buyerRunMs: opts.buyerRunMs,
    };
    for (const name of names) {
      const check = CHECKS[name];
      checks.push({ check: name, id: check.requirement.id, client, ...applicable(check, journal, severalDealers && !check.acrossDealers) });
    }
  }
  const count = (verdict: Verdict): number => checks.filter((c) => c.verdict === verdict).length;
  const summary = { pass: count('PASS'), fail: count('FAIL'), not_exercised: count('NOT EXERCISED'), not_applicable: count('NOT APPLICABLE') };
  const dealer = dealerConformanceSection(entries);
  return {
    generated_at: new Date().toISOString(),
    client_key: clientKeyOf([...byClient.values()].flat()),
    clients,
    checks,
    summary,
    ok: summary.fail === 0,
    ...(dealer ? { dealer_conformance: dealer } : {}),
  };
}

/** The check's verdict, NOT APPLICABLE when it was not exercised and the client never called a skill it is about. */
function applicable(check: Check, journal: ClientJournal, perDealer: boolean): CheckOutcome {
  const outcome = perDealer ? gradePerDealer(check, journal) : check.grade(journal);
  const { skills } = check;
  if (outcome.verdict !== 'NOT EXERCISED' || skills === undefined || journal.requests.some((e) => e.skill !== undefined && skills.includes(e.skill)))
    return outcome;
  return { verdict: 'NOT APPLICABLE', evidence: [], explanation: `this client never called ${skills.join(' or ')}` };
}

/** The one client key the graded lines were keyed by. */
function clientKeyOf(requests: readonly JournalEntry[]): string {
  const keys = new Set(requests.map((e) => e.client_key ?? 'unknown'));
  if (keys.size === 0) return 'unknown';
  return keys.size === 1 ? [...keys][0] : 'mixed';
}
