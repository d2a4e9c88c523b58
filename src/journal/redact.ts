/**
 * Secrets never reach a sink (journal file, /journal, /events, report, logs, metrics). No sink
 * stores request headers, so the one way a secret could get in is as the client key
 * (`--client-key header:NAME`): for a secret header it is replaced by a hash, which still tells
 * buyers apart without revealing what they sent.
 */
import { hash } from 'node:crypto';

/** Headers that always carry credentials. */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'] as const;

/** The secret header names: the built-in ones and those named by --redact-header. */
export function secretHeaderNames(extra: readonly string[] = []): Set<string> {
  return new Set([...SECRET_HEADERS, ...extra.map((n) => n.trim().toLowerCase()).filter(Boolean)]);
}

/** What is stored instead of a secret value. */
export function redacted(value: string): string {
  return `redacted:sha256:${hash('sha256', value).slice(0, 16)}`;
}
