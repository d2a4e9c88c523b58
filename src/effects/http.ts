/** `http`: a raw reply that is not JSON-RPC — a gateway's HTML 502, a 503 with Retry-After, an empty 200. */
import type { Rule } from '../scenario/types.generated.js';
import type { TerminalEffect } from './effect.js';

export function createHttpEffect(rule: Rule): TerminalEffect {
  const spec = rule.http!;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = String(v);
  const body = Buffer.from(spec.body ?? '');
  const sentence = `HTTP ${spec.status}${body.length ? ` with a ${body.length}-byte body` : ' with an empty body'}`;
  return {
    name: 'http',
    terminal: true,
    explain: () => sentence,
    decide: () => ({ action: { type: 'reply', status: spec.status, headers, body }, explain: sentence }),
  };
}
