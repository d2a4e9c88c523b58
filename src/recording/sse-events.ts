/**
 * Splits a recorded SSE reply into its events, each stamped with the moment its last byte
 * arrived. Done after the reply has gone out, from the chunks and their arrival times.
 */
import { StringDecoder } from 'node:string_decoder';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import type { RecordedEvent } from './format.js';

const EVENT_END = /\r?\n\r?\n/;

/** One event block: its JSON data when that is all it carries, else its text as sent. */
function readEvent(block: string, offsetMs: number): RecordedEvent {
  const lines = block.split(/\r?\n/).filter((l) => l !== '' && !l.startsWith(':'));
  if (lines.length > 0 && lines.every((l) => l.startsWith('data:'))) {
    const payload = lines.map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    try {
      return { offset_ms: offsetMs, data: JSON.parse(payload) as unknown };
    } catch {
      // not JSON: kept as text below
    }
  }
  return { offset_ms: offsetMs, text: block };
}

export function splitSseEvents(chunks: readonly Buffer[], arrivedMs: readonly number[]): RecordedEvent[] {
  const decoder = new StringDecoder('utf8');
  const events: RecordedEvent[] = [];
  let pending = '';
  chunks.forEach((chunk, i) => {
    pending += decoder.write(chunk);
    let m: RegExpExecArray | null;
    while ((m = EVENT_END.exec(pending)) !== null) {
      const block = pending.slice(0, m.index);
      pending = pending.slice(m.index + m[0].length);
      if (block.trim() !== '') events.push(readEvent(block, arrivedMs[i]!));
    }
  });
  pending += decoder.end();
  // A stream that ended without closing its last event: kept as it was sent.
  if (pending.trim() !== '') events.push({ offset_ms: arrivedMs.at(-1) ?? 0, text: pending });
  return events;
}

/** An event as it goes on the wire again. */
export function sseFrame(event: { data?: unknown; text?: string }, data: unknown = event.data): string {
  return event.text !== undefined ? `${event.text}\n\n` : `data: ${stringifyJsonRpc(data)}\n\n`;
}
