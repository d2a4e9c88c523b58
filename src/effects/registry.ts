/**
 * The registry: the key a user writes in a rule → the effect that implements it. The two key
 * lists are generated from the schema's `x-aap-effect` annotations, so an effect the schema
 * declares without an implementation here does not compile. Adding an effect means the schema,
 * one effect file, and one line here.
 */
import type { Rule } from '../scenario/types.generated.js';
import { MODIFIER_EFFECTS as MODIFIER_KEYS, type ModifierEffectKey, type TerminalEffectKey } from '../scenario/effect-keys.generated.js';
import { terminalEffectsOf } from '../scenario/effect-kinds.js';
import type { ModifierEffect, TerminalEffect } from './effect.js';
import { createErrorEffect } from './error.js';
import { createA2aErrorEffect } from './a2a-error.js';
import { createRequireEffect } from './require.js';
import { createRateLimitEffect } from './rate-limit.js';
import { createHttpEffect } from './http.js';
import { createNetworkEffect } from './network.js';
import { createDelayEffect } from './delay.js';
import { createPatchEffect } from './patch.js';
import { createEnvelopeEffect } from './envelope.js';
import { createStreamEffect } from './stream.js';
import { createBandwidthEffect } from './bandwidth.js';
import { createCardEffect } from './card.js';

export const TERMINAL_EFFECTS: Record<TerminalEffectKey, (rule: Rule) => TerminalEffect> = {
  error: createErrorEffect,
  a2a_error: createA2aErrorEffect,
  require: createRequireEffect,
  rate_limit: createRateLimitEffect,
  http: createHttpEffect,
  network: createNetworkEffect,
};

/** Applied in the schema's order of the keys (MODIFIER_KEYS), whatever order a rule writes them in. */
export const MODIFIER_EFFECTS: Record<ModifierEffectKey, (rule: Rule) => ModifierEffect> = {
  delay: createDelayEffect,
  patch: createPatchEffect,
  envelope: createEnvelopeEffect,
  stream: createStreamEffect,
  bandwidth: createBandwidthEffect,
  card: createCardEffect,
};

export function effectsOf(rule: Rule): { terminal?: TerminalEffect; modifiers: ModifierEffect[] } {
  // Validation allows one terminal effect per rule.
  const [terminalKey] = terminalEffectsOf(rule);
  const terminal = terminalKey ? TERMINAL_EFFECTS[terminalKey](rule) : undefined;
  const modifiers = MODIFIER_KEYS.filter((key) => rule[key] !== undefined).map((key) => MODIFIER_EFFECTS[key](rule));
  return { terminal, modifiers };
}
