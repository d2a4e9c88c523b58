/**
 * `require`: the AAP 2.0 header policy, terminal only when unmet. A request without the AAP URI
 * in A2A-Extensions gets -32008 naming the URI and the header; an absent, empty or different
 * A2A-Version gets -32009.
 */
import { buildExtensionRequired, buildVersionNotSupported } from '../protocol/envelopes.js';
import type { Rule } from '../scenario/types.generated.js';
import { envelopeReply, type TerminalEffect } from './effect.js';

export function createRequireEffect(rule: Rule): TerminalEffect {
  const req = rule.require!;
  const parts = [req.extension ? 'the AAP extension in A2A-Extensions' : '', req.version ? `A2A-Version ${req.version}` : ''].filter(Boolean);
  return {
    name: 'require',
    terminal: true,
    explain: () => `require ${parts.join(' and ')}`,
    decide: (ctx) => {
      if (req.extension && !ctx.request.extensions.includes(ctx.extensionUri)) {
        return {
          action: envelopeReply(buildExtensionRequired(ctx.extensionUri, ctx.request.id)),
          explain: 'EXTENSION_SUPPORT_REQUIRED (-32008): extension not activated',
        };
      }
      if (req.version !== undefined && ctx.request.a2aVersion !== req.version) {
        const seen = ctx.request.a2aVersion === undefined ? 'absent' : ctx.request.a2aVersion === '' ? 'empty' : `'${ctx.request.a2aVersion}'`;
        return {
          action: envelopeReply(buildVersionNotSupported(ctx.request.a2aVersion, ctx.request.id, req.version)),
          explain: `VERSION_NOT_SUPPORTED (-32009): A2A-Version ${seen}`,
        };
      }
      return undefined;
    },
  };
}
