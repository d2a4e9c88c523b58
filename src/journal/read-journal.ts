/**
 * Reads a JSONL journal file back into entries for the report. A line that is not JSON, or
 * lacks a field the report relies on, stops the read with the file and line number, because a
 * verdict computed from a silently skipped line could be wrong.
 */
import { readRegularFile } from '../common/regular-file.js';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JournalEntry } from './entry.js';
import { UNKNOWN_CAUSES } from './outcome.js';
import { PROFILES } from '../protocol/codes.js';

/** A journal that cannot be read; `line` is 1-based, absent when the file itself failed. */
export class JournalReadError extends Error {
  override name = 'JournalReadError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${detail}`);
  }
}

const optionalString = { type: 'string' };

/** The fields the report reads, with the types it relies on; writers may add others. */
const ENTRY_SHAPE = {
  type: 'object',
  required: ['id', 't', 'client', 'status', 'duration_ms'],
  properties: {
    id: { type: 'string', minLength: 1 },
    t: { type: 'number' },
    client: { type: 'string' },
    status: { type: 'integer', minimum: 0 },
    duration_ms: { type: 'number', minimum: 0 },
    method: optionalString,
    skill: optionalString,
    path: optionalString,
    request_hash: optionalString,
    idempotency_key: optionalString,
    vehicle: optionalString,
    a2a_version: { type: ['string', 'null'] },
    extensions: { type: 'array', items: { type: 'string' } },
    source: { enum: ['dealer', 'injected', 'proxy'] },
    rpc_code: { type: 'integer' },
    error_code: optionalString,
    error_id: optionalString,
    retryable: { type: 'boolean' },
    retry_after_ms: { type: 'number', minimum: 0 },
    retry_after_seconds: { type: 'number', minimum: 0 },
    aborted: { type: 'boolean' },
    conformance: {
      type: 'array',
      items: { type: 'object', required: ['rule', 'severity'], properties: { rule: { type: 'string' }, severity: { enum: ['MUST', 'SHOULD'] } } },
    },
    outcome: { enum: ['result', 'error', 'unknown'] },
    unknown_cause: { enum: UNKNOWN_CAUSES },
    error_in_stream: { type: 'boolean' },
    profile: { enum: PROFILES },
    extension_uri: optionalString,
    required_extension: optionalString,
    client_key: optionalString,
    listed_problems: { type: 'array', items: { type: 'string' } },
    request_problems: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** Compiled on first use: a proxy that never reads a journal file does not pay for it. */
let compiledEntryValidator: ValidateFunction | undefined;
function entryValidator(): ValidateFunction {
  if (!compiledEntryValidator) {
    // Required here, not imported: the validator library costs a proxy that reads no journal its load time.
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    compiledEntryValidator = new Ajv({ allErrors: false }).compile(ENTRY_SHAPE);
  }
  return compiledEntryValidator;
}

function describeProblem(error: ErrorObject | undefined): string {
  if (error === undefined) return 'not a journal entry';
  const where = error.instancePath === '' ? 'the line' : `field ${error.instancePath.slice(1)}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** Parses one line; throws a JournalReadError naming the line. */
export function parseJournalLine(text: string, file: string, line: number): JournalEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new JournalReadError(file, line, `not valid JSON (${(err as Error).message})`);
  }
  const validateEntry = entryValidator();
  if (!validateEntry(value)) throw new JournalReadError(file, line, describeProblem(validateEntry.errors?.[0]));
  const entry = value as JournalEntry & { retry_after_seconds?: number };
  // The writer already converts a seconds hint; a hand-written journal may still carry one.
  if (entry.retry_after_ms === undefined && entry.retry_after_seconds !== undefined) {
    entry.retry_after_ms = entry.retry_after_seconds * 1000;
  }
  return entry;
}

/** A journal read back whole: a day of busy staging traffic, with room (a longer run is graded in parts). */
const MAX_JOURNAL_BYTES = 1024 * 1024 * 1024;

/** Every entry of a JSONL journal, in file order; blank lines are skipped. */
export async function readJournal(file: string): Promise<JournalEntry[]> {
  const read = readRegularFile(file, { maxBytes: MAX_JOURNAL_BYTES, what: 'a journal' });
  if (!read.ok) throw new JournalReadError(file, undefined, `cannot read the journal: ${read.message}`);
  const text = read.bytes.toString('utf8');
  const entries: JournalEntry[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() !== '') entries.push(parseJournalLine(line, file, index + 1));
  });
  return entries;
}

/** Several journals (the replicas of a fleet) as one, in time order: ULIDs sort by time. */
export async function readJournals(files: readonly string[]): Promise<JournalEntry[]> {
  if (files.length === 1) return readJournal(files[0]!);
  const all = (await Promise.all(files.map(readJournal))).flat();
  return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
