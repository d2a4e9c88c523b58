/**
 * A journal line as JSONL text, built once for every sink (the ring, the file, an /events
 * client): they are handed the same entry in the same turn, so the text of the last entry asked
 * for is kept in one slot. An entry is not changed once it is handed to the observers
 * (src/proxy/request-path.ts adds its last field before), so the text stays true.
 */
import type { JournalEntry } from './entry.js';

let lastEntry: JournalEntry | undefined;
let lastText = '';

/** The entry as one line of JSON, with its trailing newline. */
export function journalLine(entry: JournalEntry): string {
  if (entry !== lastEntry) {
    lastText = JSON.stringify(entry) + '\n';
    lastEntry = entry;
  }
  return lastText;
}

/** The entry as JSON without the newline (a WebSocket message). */
export function journalJson(entry: JournalEntry): string {
  const line = journalLine(entry);
  return line.slice(0, -1);
}
