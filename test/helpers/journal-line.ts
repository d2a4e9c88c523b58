// One plausible journal line for tests that build journals by hand; callers override what matters.
import type { JournalEntry } from '../../src/journal/entry.js';

export function journalLine(id: string, t: number, fields: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id,
    ts: new Date(t).toISOString(),
    t,
    duration_ms: 1,
    client: '127.0.0.1',
    http_method: 'POST',
    path: '/a2a',
    kind: 'jsonrpc',
    method: 'SendMessage',
    matched: [],
    fired: [],
    effects: [],
    status: 200,
    source: 'dealer',
    dry_run: false,
    ...fields,
  };
}
