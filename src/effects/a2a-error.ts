/** `a2a_error`: an A2A protocol error in A2A's own shape, by name, asked of src/protocol. */
import { buildA2aError, buildExtensionRequired } from '../protocol/envelopes.js';
import { A2A_ERROR_TABLE, type A2aErrorName } from '../protocol/codes.js';
import type { Rule } from '../scenario/types.generated.js';
import { envelopeReply, type TerminalEffect } from './effect.js';

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
        name === 'EXTENSION_SUPPORT_REQUIRED'
          ? buildExtensionRequired(ctx.extensionUri, ctx.request.id)
          : buildA2aError(name, ctx.request.id, { message: rule.message }),
      ),
      explain: sentence,
    }),
  };
}
