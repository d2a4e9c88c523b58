/**
 * `error`: the typed AAP error envelope of the active profile, asked of src/protocol. effectsOf()
 * has already turned the short form (`error: CODE` with sibling keys) into `{ code, … }`.
 */
import { buildAapError, newErrorId } from '../protocol/envelopes.js';
import { EnvelopeTemplate, type EnvelopeBuilder } from '../protocol/envelope-template.js';
import { AAP_CODE_TABLE, DEFAULT_RETRY_AFTER_MS, VALIDATION_CODES, type AapCode, type Profile } from '../protocol/codes.js';
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
  const options = {
    message: spec.message,
    retryable: spec.retryable,
    details: spec.details as Record<string, unknown> | undefined,
    retryAfterMs: spec.retry_after_ms,
    retryAfterSeconds: spec.retry_after_seconds,
  };
  // Validation codes without errors get them derived from each request (never dropped): no template.
  const templated = !VALIDATION_CODES.has(code);
  /** Per profile, made on first use: the envelope's builder, and its template when one is proven. */
  const perProfile = new Map<Profile, { build: EnvelopeBuilder; template: EnvelopeTemplate | undefined }>();
  const forProfile = (profile: Profile) => {
    let made = perProfile.get(profile);
    if (!made) {
      const build: EnvelopeBuilder = (id, errorId, now) => buildAapError(profile, code, id, { ...options, errorId, now });
      made = { build, template: EnvelopeTemplate.of(build) };
      perProfile.set(profile, made);
    }
    return made;
  };
  return {
    name: 'error',
    terminal: true,
    explain: () => sentence,
    decide: (ctx) => {
      if (!templated)
        return { action: envelopeReply(buildAapError(ctx.profile, code, ctx.request.id, { ...options, request: ctx.request })), explain: sentence };
      const { build, template } = forProfile(ctx.profile);
      const errorId = newErrorId();
      const now = Date.now();
      const id = ctx.request.id;
      return { action: envelopeReply(build(id, errorId, now), 200, template?.render(id, errorId, now)), explain: sentence };
    },
  };
}
