/**
 * The differential half of the exam: `payload-by-type` cannot be read from one journal, since a
 * buyer that picks the AAP payload by position behaves well as long as the entries come in the
 * usual order. So a battery scenario named in UNTIDY_TWINS runs twice: as written, and as its
 * "untidy twin" with `envelope: {shuffle: true, unknown_detail: true}` on every reply, which
 * reorders every error's `data` entries and adds one of an unknown `@type`. The twin's faults are
 * the same (counted rules, same seed), so a buyer that reads the payload by `@type` reacts to
 * every error the same way and earns the same verdicts in both runs. Reactions are compared as
 * behaviour, not bytes (see Reaction below), and as a multiset, so the order in which independent
 * concurrent requests happened to go does not count.
 */
import type { Scenario } from '../scenario/load.js';
import { CHECK_NAMES } from '../report/checks/index.js';
import type { JournalEntry } from '../journal/entry.js';
import { gapMs, nextRequest, requestIdentity, retryHintMs, sawError, skillOf } from '../report/checks/read-line.js';
import { resolveThresholds } from '../report/thresholds.js';
import type { BatteryScenario } from './battery.js';
import type { ExamRun } from './scorecard.js';

/** Battery scenarios that get an untidy twin: their faults are counted, not drawn, so both runs meet the same ones. */
export const UNTIDY_TWINS: readonly string[] = ['lead-recovery'];
const TWIN_SUFFIX = '+untidy-envelopes';
const UNTIDY_RULE = 'untidy-envelopes';
const CHECK = 'payload-by-type';
/**
 * Checks whose verdicts grade how long the buyer waited: their verdicts are not compared between
 * the runs. backoff is a test over every wait of a run, and for a buyer that retries at once twice
 * a millisecond decides it (gaps of 1 ms FAIL, 2 ms PASS), which the machine, not the envelope,
 * chooses. What the payload tells a buyer about time is its retry hint, and each reaction to a
 * hinted error says whether the hint was waited out; a storm shows in the requests per skill.
 */
const GRADED_BY_TIME: readonly string[] = ['backoff', 'retry-after', 'no-storm'];

/** The battery with each twin right after its scenario. */
export function withUntidyTwins(battery: readonly BatteryScenario[]): BatteryScenario[] {
  return battery.flatMap((b) => {
    if (!UNTIDY_TWINS.includes(b.name)) return [b];
    const scenario: Scenario = {
      ...b.scenario,
      scenario: b.name + TWIN_SUFFIX,
      rules: [{ id: UNTIDY_RULE, envelope: { shuffle: true, unknown_detail: true } }, ...(b.scenario.rules ?? [])],
    };
    return [b, { ref: b.ref, name: b.name + TWIN_SUFFIX, scenario, twinOf: b.name }];
  });
}

/**
 * How the buyer reacted to one error it received, as behaviour rather than bytes: which skill and
 * code it met, and whether it then sent that request again unchanged, or — after an error that
 * names what to change (listed places, the idempotency key) — changed it (fixing how many of the
 * listed places, keeping or renewing the key) or gave up on the skill; for a reply with a retry
 * hint, whether it waited it out. Timestamps,
 * UUIDs, keys, messageIds and ids the dealer returned never enter it, so a buyer that takes its
 * consent time from the clock or draws fresh keys reacts the same in both runs. Waits without a
 * hint are not compared: jittered backoff draws them at random by design, and the machine stretches
 * any wait (backoff grades them within each run; see GRADED_BY_TIME).
 */
interface Reaction {
  /** The error met: skill and code. */
  met: string;
  /** What the buyer did next, as the checks read it. */
  did: string;
  /**
   * The same, with every request that started after the reply counted as a possible reaction. A
   * buyer with several requests in flight may answer an error within the checks' crossing window,
   * where they cannot tell its reaction from a request that crossed the reply on the wire: the
   * checks then look further on, and a busy machine decides which side of the window it falls. A
   * reaction matches when either reading of one run equals either reading of the other.
   */
  didLoosely: string;
  /** The reply, for evidence. */
  entry: JournalEntry;
}

function keyClause(error: JournalEntry, next: JournalEntry): string {
  if (next.skill !== 'lead.submit') return '';
  if (next.idempotency_key === undefined) return ', without an idempotency_key';
  return next.idempotency_key === error.idempotency_key ? ', with the same idempotency_key' : ', with a new idempotency_key';
}

function reactionTo(requests: readonly JournalEntry[], index: number, tolerance: number, crossingMs: number): string {
  const error = requests[index]!;
  const identity = requestIdentity(error);
  const again = identity === undefined ? undefined : nextRequest(requests, index, (e) => requestIdentity(e) === identity, crossingMs);
  // Only an error that names what to change (listed places, the idempotency key) makes the next
  // request of the skill its answer; otherwise that may be any other request of a busy buyer.
  const namesChange = (error.listed_problems?.length ?? 0) > 0 || error.error_code === 'IDEMPOTENCY_CONFLICT';
  const next = again ?? (namesChange ? nextRequest(requests, index, (e) => skillOf(e) === skillOf(error), crossingMs) : undefined);
  if (next === undefined) return namesChange ? `gave up on ${skillOf(error)}` : 'did not send it again';
  let did = next === again ? 'sent the same request again' : 'changed the request';
  const listed = error.listed_problems ?? [];
  if (next !== again && listed.length > 0) {
    const fixed = listed.filter((l) => !(next.request_problems ?? []).some((p) => p === l || p.startsWith(`${l}/`))).length;
    did += `, fixing ${fixed} of ${listed.length} listed places`;
  }
  did += keyClause(error, next);
  const hint = retryHintMs(error);
  if (hint !== undefined) did += gapMs(error, next) + tolerance >= hint ? ', after the retry hint' : ', before the retry hint';
  return did;
}

/**
 * The crossing window of the loose reading: none at all. Start times are whole milliseconds, so a
 * request that started in the millisecond its reply ended in reads as up to 1 ms before the
 * reply's end (sentAfterReply allows that much); a window of 0 still judged such a request as a
 * possible crossing while another was in flight, and took a prompt answer for none (zoo-43, four
 * requests in flight, "gave up on lead.submit" in one run only).
 */
const EVERY_REQUEST_AFTER_THE_REPLY = -1;

/** The buyer's reaction to every error it received, in start order. */
function reactions(journal: readonly JournalEntry[], tolerance: number): Reaction[] {
  const requests = journal.filter((e) => e.method !== undefined).sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : 1));
  return requests.flatMap((entry, i) =>
    sawError(entry)
      ? [
          {
            met: `${skillOf(entry)} ${entry.error_code ?? `error ${entry.rpc_code}`}`,
            did: reactionTo(requests, i, tolerance, tolerance),
            didLoosely: reactionTo(requests, i, tolerance, EVERY_REQUEST_AFTER_THE_REPLY),
            entry,
          },
        ]
      : [],
  );
}

/** How many requests of each skill, sorted: what the whole run asked, whatever the order. */
function skillCounts(journal: readonly JournalEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of journal) if (e.method !== undefined) counts.set(skillOf(e), (counts.get(skillOf(e)) ?? 0) + 1);
  return counts;
}

function sameReaction(a: Reaction, b: Reaction): boolean {
  return a.did === b.did || a.did === b.didLoosely || a.didLoosely === b.did || a.didLoosely === b.didLoosely;
}

/** The first reaction of the twin that the base run has no match for (order of independent requests aside). */
function firstUnmatched(base: Reaction[], twin: Reaction[]): { twin?: Reaction; base?: Reaction } | undefined {
  const left = [...base];
  for (const r of twin) {
    const at = left.findIndex((b) => b.met === r.met && sameReaction(b, r));
    if (at >= 0) left.splice(at, 1);
    else return { twin: r, base: left.find((b) => b.met === r.met) };
  }
  return left.length > 0 ? { base: left[0] } : undefined;
}

const ADVICE = 'find the AAP payload by its @type and ignore unknown entries';

function compare(base: ExamRun, twin: ExamRun): { verdict: 'PASS' | 'FAIL' | 'NOT EXERCISED'; evidence: string[]; explanation: string } {
  const untidied = twin.journal.filter((e) => e.faults?.some((f) => f.rule === UNTIDY_RULE)).length;
  if (untidied === 0) return { verdict: 'NOT EXERCISED', evidence: [], explanation: 'no error envelope reached the buyer in the untidy run' };
  const changed = CHECK_NAMES.filter((c) => c !== CHECK && !GRADED_BY_TIME.includes(c) && base.verdicts[c] !== twin.verdicts[c]);
  if (changed.length > 0) {
    const c = changed[0]!;
    return {
      verdict: 'FAIL',
      evidence: twin.evidence[c] ?? [],
      explanation: `with shuffled, padded error envelopes ${c} went from ${base.verdicts[c]} to ${twin.verdicts[c]}; ${ADVICE}`,
    };
  }
  const tolerance = resolveThresholds().retry_after_tolerance_ms;
  const before = reactions(base.journal, tolerance);
  const after = reactions(twin.journal, tolerance);
  const odd = firstUnmatched(before, after);
  if (odd !== undefined) {
    const met = (odd.twin ?? odd.base)!.met;
    const was = odd.base?.did ?? `did not meet ${met}`;
    const now = odd.twin?.did ?? `did not meet ${met}`;
    return {
      verdict: 'FAIL',
      evidence: odd.twin ? [odd.twin.entry.id] : [],
      explanation: `with shuffled, padded error envelopes the buyer reacted to ${met} differently: it ${now}, where with tidy envelopes it ${was}; ${ADVICE}`,
    };
  }
  const countsBefore = skillCounts(base.journal);
  const countsAfter = skillCounts(twin.journal);
  for (const skill of new Set([...countsBefore.keys(), ...countsAfter.keys()])) {
    const [was, now] = [countsBefore.get(skill) ?? 0, countsAfter.get(skill) ?? 0];
    if (was !== now)
      return {
        verdict: 'FAIL',
        evidence: [],
        explanation: `with shuffled, padded error envelopes the buyer sent ${now} ${skill} requests instead of ${was}; ${ADVICE}`,
      };
  }
  return {
    verdict: 'PASS',
    evidence: [],
    explanation: `the same reactions to ${after.length} errors (${untidied} of them shuffled and padded), the same requests per skill and the same verdicts as with tidy envelopes`,
  };
}

/** Grades payload-by-type on every twin run against its scenario's run under the same seed. */
export function gradeUntidyTwins(battery: readonly BatteryScenario[], runs: ExamRun[]): void {
  for (const twin of battery.filter((b) => b.twinOf !== undefined)) {
    for (const run of runs.filter((r) => r.scenario === twin.name)) {
      const base = runs.find((r) => r.scenario === twin.twinOf && r.trial === run.trial);
      if (base === undefined) continue;
      const result = compare(base, run);
      run.verdicts[CHECK] = result.verdict;
      run.explanations[CHECK] = result.explanation;
      if (result.verdict === 'FAIL') run.evidence[CHECK] = result.evidence;
      run.ok = !Object.values(run.verdicts).includes('FAIL');
    }
  }
}
