// The shapes the page reads from the admin API: the server's own types, taken from the
// declarations the main build writes to dist/ (so the page cannot drift from the API).
import type { JournalEntry } from '../../../dist/journal/entry.js';

export type { ReplyErrorRecord } from '../../../dist/journal/entry.js';
export type { ChangeNotice, DroppedNotice } from '../../../dist/control/events.js';
export type { RuleStatus } from '../../../dist/engine/decision.js';
export type { RuntimeStatus as Status } from '../../../dist/runtime.js';
export type { CheckResult } from '../../../dist/report/report.js';
export type { VerdictEvent, ObservedSection } from '../../../dist/observe/live-grader.js';
import type { Report as JournalReport } from '../../../dist/report/report.js';
import type { ObservedSection } from '../../../dist/observe/live-grader.js';
/** GET /report; `observe` is there under --observe. */
export type Report = JournalReport & { observe?: ObservedSection };
export type { BuiltinScenarioInfo as BuiltinScenario } from '../../../dist/scenario/builtin.js';

/** A journal line; `session` is there when the buyer sent x-aap-chaos-session. */
export type JournalLine = JournalEntry & { session?: string };

/** A fault the buyer actually got: a rule fired and dry run was off. */
export function isFault(line: JournalLine): boolean {
  return line.fired.length > 0 && !line.dry_run;
}
