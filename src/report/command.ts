/**
 * `aap-chaos report JOURNAL.jsonl`: a journal file turned into a CI verdict, printed as a table
 * or JSON, with JUnit XML on the side. Apart from the report itself, so the formatters that read
 * the report's types are not imported by it.
 */
import { writeFile } from 'node:fs/promises';
import { toJUnit } from './junit.js';
import { JournalReadError, readJournals } from '../journal/read-journal.js';
import { formatReport } from './format.js';
import { buildReport, type Report, type ReportOptions } from './report.js';
import { ThresholdError } from './thresholds.js';

export interface ReportCommandOptions extends ReportOptions {
  /** Print the report as JSON instead of the table. */
  json?: boolean;
  /** Also write JUnit XML to this file. */
  junit?: string;
}

/** Exit codes of `aap-chaos report`. */
export const REPORT_EXIT = { ok: 0, failed: 1, unreadable: 2 } as const;

/**
 * `aap-chaos report JOURNAL.jsonl`: exit 0 when nothing failed, 1 when a check failed, 2 when
 * the journal (or a threshold, or the JUnit file) could not be used — with a message saying where.
 */
/** `files`: one journal, or one per replica of a fleet, graded as one. */
export async function runReportCommand(files: string | readonly string[], opts: ReportCommandOptions = {}): Promise<{ exitCode: number; output: string }> {
  let report: Report;
  try {
    report = buildReport(await readJournals(typeof files === 'string' ? [files] : files), opts);
  } catch (err) {
    if (err instanceof JournalReadError || err instanceof ThresholdError) {
      return { exitCode: REPORT_EXIT.unreadable, output: `aap-chaos report: ${err.message}` };
    }
    throw err;
  }
  if (opts.junit !== undefined) {
    try {
      await writeFile(opts.junit, toJUnit(report), 'utf8');
    } catch (err) {
      return { exitCode: REPORT_EXIT.unreadable, output: `aap-chaos report: cannot write JUnit file ${opts.junit}: ${(err as Error).message}` };
    }
  }
  const output = opts.json ? JSON.stringify(report, null, 2) : formatReport(report);
  return { exitCode: report.ok ? REPORT_EXIT.ok : REPORT_EXIT.failed, output };
}
