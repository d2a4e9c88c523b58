/**
 * The report's checks, as live grading uses them: the one place src/observe/ imports them from,
 * so moving the report and its checks changes these paths and nothing else.
 */
export { CHECKS, type CheckName, type CheckOutcome, type ClientJournal, type Verdict } from '../journal/checks/index.js';
export { resolveThresholds, type Thresholds } from '../journal/thresholds.js';
export type { Report } from '../journal/report.js';
export type { JournalEntry, RequestObserver } from '../journal/entry.js';
