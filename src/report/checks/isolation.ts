/**
 * isolation (AAP-BUYER-101): while one dealer is throttled (RATE_LIMITED) or out (a lost reply),
 * the buyer keeps calling the other dealers at its usual pace. A buyer that queues every call
 * behind the troubled dealer's retry shows a drop in its request rate to the others.
 *
 * The troubled window runs from the first such reply of a dealer to the end of its last one plus
 * the retry hint it carried, cut at the buyer's last request to another dealer (a buyer that is
 * done with the others may well wait). The rate to the other dealers inside the window must stay
 * at least ISOLATION_MIN_RATE_RATIO of their rate outside it; windows shorter than
 * ISOLATION_MIN_WINDOW_MS are too short to measure and are left out.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, type Check } from './check.js';
import { outcomeUnknown, sawError } from './read-line.js';

export const ISOLATION_REQUIREMENT = 'AAP-BUYER-101';
/** The share of its usual request rate to the other dealers a buyer keeps while one dealer is in trouble. */
export const ISOLATION_MIN_RATE_RATIO = 0.5;
export const ISOLATION_MIN_WINDOW_MS = 200;

const end = (e: JournalEntry) => e.t + e.duration_ms;
const troubled = (e: JournalEntry) => sawError(e, ['RATE_LIMITED']) || outcomeUnknown(e);

interface Window {
  dealer: string;
  from: number;
  to: number;
  trigger: JournalEntry;
}

function troubleWindows(requests: readonly JournalEntry[]): Window[] {
  const byDealer = new Map<string, Window>();
  for (const e of requests) {
    if (e.dealer === undefined || !troubled(e)) continue;
    const w = byDealer.get(e.dealer);
    const to = end(e) + (e.retry_after_ms ?? 0);
    if (w) w.to = Math.max(w.to, to);
    else byDealer.set(e.dealer, { dealer: e.dealer, from: e.t, to, trigger: e });
  }
  return [...byDealer.values()];
}

export const isolationCheck: Check = {
  requirement: {
    id: ISOLATION_REQUIREMENT,
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: {
      section: 'Per-code semantics › RATE_LIMITED (a limit is one dealer’s), applied across dealers',
      quote: "a RATE_LIMITED or lost reply at one dealer does not slow the buyer's calls to the others",
    },
  },
  acrossDealers: true,
  rule: `${ISOLATION_REQUIREMENT}: a RATE_LIMITED or lost reply at one dealer does not slow the buyer's calls to the other dealers (their rate stays at least ${ISOLATION_MIN_RATE_RATIO * 100}% of usual).`,
  grade({ requests }) {
    const dealers = new Set(requests.flatMap((e) => (e.dealer === undefined ? [] : [e.dealer])));
    if (dealers.size < 2) return notExercised('this client called fewer than two dealers through one proxy');
    const windows = troubleWindows(requests);
    if (windows.length === 0) return notExercised('no dealer answered this client RATE_LIMITED or lost a reply');
    const first = requests[0]!.t;
    const last = Math.max(...requests.map(end));
    let measured = 0;
    for (const w of windows) {
      const others = requests.filter((e) => e.dealer !== undefined && e.dealer !== w.dealer);
      if (others.length === 0) continue;
      const to = Math.min(w.to, Math.max(...others.map((e) => e.t)));
      const inside = others.filter((e) => e.t >= w.from && e.t <= to);
      const outsideMs = last - first - (to - w.from);
      if (to - w.from < ISOLATION_MIN_WINDOW_MS || outsideMs <= 0) continue;
      measured++;
      const rateIn = inside.length / (to - w.from);
      const rateOut = (others.length - inside.length) / outsideMs;
      if (rateIn < rateOut * ISOLATION_MIN_RATE_RATIO) {
        const perS = (r: number) => (r * 1000).toFixed(1);
        return fail(
          [w.trigger.id, ...inside.map((e) => e.id)],
          `while dealer ${w.dealer} was in trouble (${Math.round(to - w.from)} ms from ${w.trigger.error_code ?? 'a lost reply'}), calls to the other dealers fell to ${perS(rateIn)}/s from ${perS(rateOut)}/s; ` +
            `call each dealer independently, so one dealer's retry never holds up the others`,
        );
      }
    }
    if (measured === 0) return notExercised(`no troubled window of ${ISOLATION_MIN_WINDOW_MS} ms or more overlapped calls to another dealer`);
    return pass(
      windows.map((w) => w.trigger.id),
      `kept calling the other dealers while ${windows.map((w) => w.dealer).join(', ')} ${windows.length === 1 ? 'was' : 'were'} in trouble`,
    );
  },
};
