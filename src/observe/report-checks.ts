/**
 * The report's checks, as live grading uses them: the one place src/observe/ imports them from,
 * so moving the report and its checks changes these paths and nothing else.
 */
export { CHECKS, CHECK_NAMES, type CheckName, type CheckOutcome, type ClientJournal, type Verdict } from '../report/checks/index.js';
export { resolveThresholds, type Thresholds } from '../report/thresholds.js';
export type { Report } from '../report/report.js';
export type { JournalEntry, RequestObserver } from '../journal/entry.js';
