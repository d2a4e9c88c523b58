/**
 * explain_error: an error as a buyer received it — a JSON-RPC envelope, its `error` member, or a
 * whole HTTP reply — read by `aap-chaos/buyer`'s readAapError, and the next step its
 * retryPolicy would take. The same reading a buyer built on that toolkit makes, whatever the profile.
 */
import { z } from 'zod';
import { readAapError, retryPolicy, type AapErrorReading, type RetryDecision } from '../buyer/index.js';
import { AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT, EXTENSIONS_HEADER } from '../protocol/codes.js';
import { MAX_REPLY_CHARS, skill } from './inputs.js';
import { answer, defineTool } from './tool.js';

/** The middle of the backoff's jitter range, so the same input always explains the same wait. */
const MIDDLE_OF_THE_JITTER = () => 0.5;

const uri = z.string().min(1).max(2048);

export const explainErrorTool = defineTool({
  name: 'explain_error',
  title: 'Explain an AAP error',
  description:
    'Read an error as the buyer got it — a JSON-RPC error envelope (AAP 1.3 or 2.0), its `error` member, or a whole HTTP reply ("HTTP/1.1 503 …" with headers and body) — the way aap-chaos/buyer\'s readAapError does: code, retryable, retry hint, field errors, the extension to activate, and what its retryPolicy does next (retry after N ms, activate, fix the fields, or stop).',
  input: z.strictObject({
    reply: z
      .string()
      .min(1)
      .max(MAX_REPLY_CHARS)
      .describe('the envelope or its error member as JSON text, or a whole HTTP reply (status line, headers, blank line, body)'),
    http_status: z.number().int().min(100).max(599).optional().describe('the HTTP status, when `reply` is only the body'),
    retry_after: z.string().max(64).optional().describe('the Retry-After header, when `reply` is only the body'),
    attempt: z.number().int().min(1).max(100).optional().describe('attempts of this request so far, the failed one included (default 1)'),
    skill: skill.optional().describe('the skill called: a lead.submit is resent only with its idempotency_key'),
    idempotency_key: z.string().max(256).optional().describe("the lead.submit request's idempotency_key"),
    active_extensions: z.array(uri).max(8).optional().describe('extensions the failed attempt sent in A2A-Extensions'),
    supported_extensions: z.array(uri).max(8).optional().describe('extensions the buyer implements (default: the AAP v1.3 URI and the 2.0 draft placeholder)'),
  }),
  output: z.object({
    reading: z.looseObject({
      kind: z.enum(['aap', 'a2a', 'transport']),
      code: z.string().optional(),
      jsonRpcCode: z.number().optional(),
      retryable: z.boolean(),
      retryAfterMs: z.number().optional(),
      errors: z.array(z.object({ instanceLocation: z.string(), keyword: z.string(), error: z.string() })).optional(),
      message: z.string(),
      notFound: z.array(z.object({ field: z.string(), why: z.string() })),
    }),
    next: z.looseObject({ action: z.enum(['retry', 'activate', 'fix', 'stop']), reason: z.string() }),
  }),
  readOnly: true,
  async run(args) {
    const reading = readAapError(failureOf(args.reply, args.http_status, args.retry_after));
    const policy = retryPolicy({
      supportedExtensions: args.supported_extensions ?? [AAP_EXTENSION_URI_1_3, AAP_EXTENSION_URI_2_0_DRAFT],
      random: MIDDLE_OF_THE_JITTER,
    });
    const next = policy.decide(reading, {
      attempt: args.attempt ?? 1,
      skill: args.skill,
      data: args.idempotency_key !== undefined ? { idempotency_key: args.idempotency_key } : undefined,
      activeExtensions: args.active_extensions,
    });
    return answer(explanation(reading, next), { reading, next });
  },
});

/**
 * What readAapError takes for a failure: the text itself, or `{ status, headers, body }` when an
 * HTTP status is known (given, or read from the reply's own status line and headers).
 */
function failureOf(reply: string, status: number | undefined, retryAfter: string | undefined): unknown {
  const http = /^HTTP\/\d(?:\.\d)? (\d{3})\b[^\n]*\n/.exec(reply);
  if (http) {
    const end = /\r?\n\r?\n/.exec(reply);
    const head = end ? reply.slice(0, end.index) : reply;
    const body = end ? reply.slice(end.index + end[0].length) : '';
    const header = /^retry-after:[ \t]*(.*?)\r?$/im.exec(head)?.[1];
    return { status: Number(http[1]), headers: header !== undefined ? { 'retry-after': header } : {}, body };
  }
  if (status === undefined) return reply;
  return { status, headers: retryAfter !== undefined ? { 'retry-after': retryAfter } : {}, body: reply };
}

function explanation(r: AapErrorReading, next: RetryDecision): string {
  const what = [
    r.code ?? 'no code',
    r.jsonRpcCode !== undefined ? `JSON-RPC ${r.jsonRpcCode}` : undefined,
    r.httpStatus !== undefined ? `HTTP ${r.httpStatus}` : undefined,
    `${r.kind} error`,
    r.retryable ? 'retryable' : 'not retryable',
    r.retryAfterMs !== undefined ? `retry after ${r.retryAfterMs} ms` : undefined,
  ].filter((part) => part !== undefined);
  const lines = [`${what.join(', ')}: ${r.message}`];
  for (const e of r.errors ?? []) lines.push(`  field ${e.instanceLocation || '/'}: ${e.keyword ? `${e.keyword}: ` : ''}${e.error}`);
  if (r.extensionUri) lines.push(`  extension: ${r.extensionUri} in ${r.requiredHeader ?? EXTENSIONS_HEADER}`);
  lines.push(`next: ${nextStep(next)}`);
  for (const n of r.notFound) lines.push(`  not found: ${n.field}: ${n.why}`);
  return lines.join('\n');
}

function nextStep(next: RetryDecision): string {
  switch (next.action) {
    case 'retry':
      return `retry after ${next.afterMs} ms${next.idempotencyKey !== undefined ? ` with idempotency_key ${next.idempotencyKey}` : ''} (${next.reason})`;
    case 'activate':
      return `send ${next.extensionUri} in ${next.header}, then retry (${next.reason})`;
    case 'fix':
      return `fix ${next.errors.length} field(s) and send a changed request (${next.reason})`;
    case 'stop':
      return `stop (${next.reason})`;
  }
}
