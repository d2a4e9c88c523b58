/**
 * The one-dealer checks in a several-dealer journal: a retry hint, a refusal or a lost reply is one
 * dealer's word about itself, so each of those checks grades the buyer's requests to each dealer
 * apart (a search at dealer a is no early retry of a search dealer b rate limited). The verdicts are
 * folded back into one per client: a FAIL at any dealer fails, else a PASS at any passes.
 */
import type { JournalEntry } from '../../journal/entry.js';
import type { Check, CheckOutcome, ClientJournal } from './check.js';

function groupByDealer(lines: readonly JournalEntry[]): Map<string, JournalEntry[]> {
  const byDealer = new Map<string, JournalEntry[]>();
  for (const e of lines) {
    const key = e.dealer ?? '';
    let list = byDealer.get(key);
    if (list === undefined) byDealer.set(key, (list = []));
    list.push(e);
  }
  return byDealer;
}

export function gradePerDealer(check: Check, journal: ClientJournal): CheckOutcome {
  const byDealer = groupByDealer(journal.requests);
  const cardsByDealer = groupByDealer(journal.cards ?? []);
  for (const dealer of cardsByDealer.keys()) if (!byDealer.has(dealer)) byDealer.set(dealer, []);
  const graded = [...byDealer].map(([dealer, requests]) => ({
    dealer,
    outcome: check.grade({ ...journal, requests, cards: cardsByDealer.get(dealer) ?? [] }),
  }));
  const pick = (verdict: CheckOutcome['verdict']) => graded.filter((g) => g.outcome.verdict === verdict);
  const decisive = pick('FAIL').length > 0 ? pick('FAIL') : pick('PASS');
  if (decisive.length === 0) return graded[0]!.outcome;
  const named = (g: (typeof graded)[number]) => (g.dealer === '' ? g.outcome.explanation : `dealer ${g.dealer}: ${g.outcome.explanation}`);
  return {
    verdict: decisive[0]!.outcome.verdict,
    evidence: [...new Set(decisive.flatMap((g) => g.outcome.evidence))],
    explanation: decisive.map(named).join('; '),
  };
}
