/**
 * `error`: the typed AAP error envelope of the active profile, asked of src/protocol. effectsOf()
 * has already turned the short form (`error: CODE` with sibling keys) into `{ code, … }`.
 */
import { buildAapError } from '../protocol/envelopes.js';
import { AAP_CODE_TABLE, DEFAULT_RETRY_AFTER_MS, type AapCode } from '../protocol/codes.js';
import type { ErrorSpec, Rule } from '../scenario/types.generated.js';
import { envelopeReply, type TerminalEffect } from './effect.js';

/** The retry hint as the journal sentence names it; RATE_LIMITED without one gets the default. */
function retryHint(spec: ErrorSpec): string {
  const details = spec.details as { retry_after_ms?: unknown; retry_after_seconds?: unknown } | undefined;
  const ms = spec.retry_after_ms ?? details?.retry_after_ms;
  const seconds = spec.retry_after_seconds ?? details?.retry_after_seconds;
  if (ms !== undefined) return `, retry after ${String(ms)} ms`;
  if (seconds !== undefined) return `, retry after ${String(seconds)} s`;
  return spec.code === 'RATE_LIMITED' ? `, retry after ${DEFAULT_RETRY_AFTER_MS} ms` : '';
}

export function createErrorEffect(rule: Rule): TerminalEffect {
  const spec = rule.error as ErrorSpec;
  const code = spec.code as AapCode;
  const retryable = spec.retryable ?? AAP_CODE_TABLE[code].retryable;
  const sentence = `${code}${retryable ? ' (retryable)' : ''}${retryHint(spec)}`;
  return {
    name: 'error',
    terminal: true,
    explain: () => sentence,
    decide: (ctx) => ({
      action: envelopeReply(
        buildAapError(ctx.profile, code, ctx.request.id, {
          message: spec.message,
          retryable: spec.retryable,
          details: spec.details as Record<string, unknown> | undefined,
          retryAfterMs: spec.retry_after_ms,
          retryAfterSeconds: spec.retry_after_seconds,
          // Validation codes without errors get them derived from this request (never dropped).
          request: ctx.request,
        }),
      ),
      explain: sentence,
    }),
  };
}
