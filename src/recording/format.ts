/**
 * The recording: one JSON line per thing recorded, appended as it happens. A `recording` line
 * opens each recording session, `card` lines keep the dealer's agent card (each time it changed),
 * and `exchange` lines keep one request and the dealer's reply. Never a request header; personal
 * data pseudonymized and secrets dropped before a line is written (src/protocol/personal-data.ts).
 */

export const RECORDING_FORMAT = 'aap-chaos.recording/1';

export interface RecordingStartLine {
  type: 'recording';
  format: typeof RECORDING_FORMAT;
  started_at: string;
  /** The dealer's origin (no path, query or credentials). */
  target: string;
}

export interface CardLine {
  type: 'card';
  at: string;
  card: Record<string, unknown>;
}

export interface RecordedRequest {
  /** HTTP path (no query) the request was posted to. */
  path: string;
  /** JSON-RPC method. */
  method: string;
  /** The JSON-RPC id as the buyer sent it (informative: a replay echoes the live one). */
  id: string | number | null;
  skill?: string;
  /** The skill's DataPart: `data` (scrubbed), with its `mediaType` and `metadata` when given. */
  part?: Record<string, unknown>;
  /** For a method without a skill (GetTask, CancelTask…): its params, secrets dropped. */
  params?: unknown;
}

export interface RecordedEvent {
  /** Milliseconds from the request's start to the moment the event was complete. */
  offset_ms: number;
  /** The event's data as JSON, when it was one `data:` JSON payload; otherwise its raw `text`. */
  data?: unknown;
  text?: string;
}

export interface RecordedReply {
  status: number;
  /** End-to-end response headers, secrets and framing (content-length) left out. */
  headers: Record<string, string | string[]>;
  /** A JSON body; or `text` (not JSON), `base64` (compressed or binary), or `events` (SSE). */
  body?: unknown;
  text?: string;
  base64?: string;
  events?: RecordedEvent[];
}

export interface ExchangeLine {
  type: 'exchange';
  at: string;
  duration_ms: number;
  request: RecordedRequest;
  reply: RecordedReply;
}

export type RecordingLine = RecordingStartLine | CardLine | ExchangeLine;
