/**
 * Terminal effects that answer with a JSON-RPC error envelope: `error` (an AAP code) and
 * `a2a_error` (an A2A protocol error by name). Both ask src/protocol for the envelope.
 */
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import { buildA2aError, buildAapError, buildExtensionRequired, type JsonRpcErrorResponse } from '../protocol/envelopes.js';
import { A2A_ERROR_TABLE, AAP_CODE_TABLE, DEFAULT_RETRY_AFTER_MS, type A2aErrorName, type AapCode } from '../protocol/codes.js';
import type { ErrorSpec, Rule } from '../scenario/types.generated.js';
import { ruleErrorSpec } from '../scenario/effect-kinds.js';
import type { EffectContext, TerminalAction, TerminalEffect } from './effect.js';

/** JSON-RPC errors travel on HTTP 200 unless a rule says otherwise. */
export function envelopeReply(envelope: JsonRpcErrorResponse, status = 200): TerminalAction {
  return { type: 'reply', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(stringifyJsonRpc(envelope)), envelope };
}

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
  const spec = ruleErrorSpec(rule)!;
  const code = spec.code as AapCode;
  const retryable = spec.retryable ?? AAP_CODE_TABLE[code].retryable;
  const sentence = `${code}${retryable ? ' (retryable)' : ''}${retryHint(spec)}`;
  return {
    name: 'error',
    terminal: true,
    explain: () => sentence,
    decide: (ctx: EffectContext) => ({
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

export function createA2aErrorEffect(rule: Rule): TerminalEffect {
  const name = rule.a2a_error as A2aErrorName;
  const sentence = `${name} (${A2A_ERROR_TABLE[name].code})`;
  return {
    name: 'a2a_error',
    terminal: true,
    explain: () => sentence,
    decide: (ctx) => ({
      // -32008 is never bare: by name it gets the URI and header it must carry.
      action: envelopeReply(
        name === 'EXTENSION_SUPPORT_REQUIRED' ? buildExtensionRequired(ctx.extensionUri, ctx.request.id) : buildA2aError(name, ctx.request.id, { message: rule.message }),
      ),
      explain: sentence,
    }),
  };
}
