/**
 * slow-dealer (AAP-BUYER-103): with several dealers and one of them slow, the buyer still finishes
 * within its own budget (`slow_dealer_budget_ms`, default 10 s): it answers with the dealers that
 * did reply instead of waiting for the slow one. The run time is the exam's buyer run time when the
 * report is told it, else the span of this client's journal (first request to last reply, a reply
 * the buyer walked away from counting until it left).
 *
 * A dealer is slow when a delay fault acted on its replies, or when its median reply takes more than
 * SLOW_FACTOR times the median of the other dealers.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, type Check } from './check.js';
import { ms } from './read-line.js';

export const SLOW_DEALER_REQUIREMENT = 'AAP-BUYER-103';
export const SLOW_FACTOR = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};

function slowDealers(requests: readonly JournalEntry[]): { dealer: string; evidence: JournalEntry }[] {
  const byDealer = new Map<string, JournalEntry[]>();
  for (const e of requests) if (e.dealer !== undefined) byDealer.set(e.dealer, [...(byDealer.get(e.dealer) ?? []), e]);
  const slow: { dealer: string; evidence: JournalEntry }[] = [];
  for (const [dealer, lines] of byDealer) {
    const delayed = lines.find((e) => e.faults?.some((f) => f.effect === 'delay'));
    const others = [...byDealer].filter(([d]) => d !== dealer).flatMap(([, l]) => l.map((e) => e.duration_ms));
    const own = median(lines.map((e) => e.duration_ms));
    if (delayed) slow.push({ dealer, evidence: delayed });
    else if (others.length > 0 && own > SLOW_FACTOR * Math.max(median(others), 1))
      slow.push({ dealer, evidence: lines.reduce((a, b) => (b.duration_ms > a.duration_ms ? b : a)) });
  }
  return slow;
}

export const slowDealerCheck: Check = {
  requirement: {
    id: SLOW_DEALER_REQUIREMENT,
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: { section: 'Transport failures (timeouts), applied across dealers', quote: 'one slow dealer does not hold the buyer past its own budget' },
  },
  acrossDealers: true,
  rule: `${SLOW_DEALER_REQUIREMENT}: with one dealer slower than the others, the buyer still finishes within slow_dealer_budget_ms.`,
  grade(journal) {
    const { requests, thresholds } = journal;
    const dealers = new Set(requests.flatMap((e) => (e.dealer === undefined ? [] : [e.dealer])));
    if (dealers.size < 2) return notExercised('this client called fewer than two dealers through one proxy');
    const slow = slowDealers(requests);
    if (slow.length === 0 || slow.length === dealers.size) return notExercised('no one dealer was slower than the others');
    const budget = thresholds.slow_dealer_budget_ms;
    const given = journal.buyerRunMs;
    const runMs = given ?? Math.max(...requests.map((e) => e.t + e.duration_ms)) - requests[0]!.t;
    const names = slow.map((s) => s.dealer).join(', ');
    const what = given !== undefined ? 'the buyer ran' : 'the buyer was busy';
    if (runMs <= budget)
      return pass(
        slow.map((s) => s.evidence.id),
        `${what} ${ms(runMs)} with ${names} slow (budget ${ms(budget)})`,
      );
    return fail(
      slow.map((s) => s.evidence.id),
      `${what} ${ms(runMs)} with ${names} slow, over its budget of ${ms(budget)}; give each dealer call its own deadline and answer with the dealers that replied`,
    );
  },
};
