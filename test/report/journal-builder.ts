/**
 * Hand-built journals for the report tests: each line is a request starting some milliseconds
 * into the run, with readable ids (j01, j02 …) so tests can name their evidence.
 */
import type { JournalEntry } from '../../src/journal/entry.js';
import { journalLine } from '../helpers/journal-line.js';
import { buildReport, type CheckResult, type CheckName, type ReportOptions } from '../../src/report/report.js';

export const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);
export const CLIENT = 'buyer-a';

export class JournalBuilder {
  readonly entries: JournalEntry[] = [];

  constructor(private readonly defaults: Partial<JournalEntry> = {}) {}

  /** Adds a request that starts `at` ms into the run and returns its id. */
  at(at: number, fields: Partial<JournalEntry> = {}): string {
    const id = `j${String(this.entries.length + 1).padStart(2, '0')}`;
    this.entries.push(
      journalLine(id, T0 + at, {
        duration_ms: 5,
        client: CLIENT,
        path: '/',
        skill: 'inventory.search',
        request_hash: 'hash-search-honda',
        a2a_version: '1.0',
        extensions: [],
        ...this.defaults,
        ...fields,
      }),
    );
    return id;
  }
}

/** Replies, as the journal records them. */
export const reply = {
  rateLimited: (retry_after_ms: number): Partial<JournalEntry> => ({
    source: 'injected',
    rpc_code: -32002,
    error_code: 'RATE_LIMITED',
    retryable: true,
    retry_after_ms,
  }),
  internalError: (): Partial<JournalEntry> => ({ source: 'injected', rpc_code: -32603, error_code: 'INTERNAL_ERROR', retryable: true }),
  upstreamUnreachable: (): Partial<JournalEntry> => ({ source: 'proxy', rpc_code: -32603, error_code: 'INTERNAL_ERROR', retryable: true }),
  refused: (error_code: string): Partial<JournalEntry> => ({ source: 'injected', rpc_code: -32000, error_code, retryable: false }),
  extensionRequired: (): Partial<JournalEntry> => ({ source: 'injected', rpc_code: -32008, error_code: 'EXTENSION_SUPPORT_REQUIRED' }),
  reset: (): Partial<JournalEntry> => ({ source: 'injected', status: 0 }),
};

/** The result of one check for the builder's client. */
export function grade(entries: JournalEntry[], check: CheckName, opts?: ReportOptions): CheckResult {
  const result = buildReport(entries, opts).checks.find((c) => c.check === check && c.client === CLIENT);
  if (result === undefined) throw new Error(`no ${check} result for ${CLIENT}`);
  return result;
}
