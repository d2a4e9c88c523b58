/**
 * The registry: the key a user writes in a rule → the effect that implements it.
 * Adding an effect means one file and one line here.
 */
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect, TerminalEffect } from './effect.js';
import { MODIFIER_EFFECTS as MODIFIER_KEYS, terminalEffectsOf, type ModifierEffectKey, type TerminalEffectKey } from '../scenario/effect-kinds.js';
import { createA2aErrorEffect, createErrorEffect } from './terminal-errors.js';
import { createRequireEffect } from './require.js';
import { createRateLimitEffect } from './rate-limit.js';
import { createHttpEffect } from './http.js';
import { createNetworkEffect } from './network.js';
import { createDelayEffect } from './delay.js';
import { createCardEffect } from './card.js';
import { createBandwidthEffect, createEnvelopeEffect, createPatchEffect, createStreamEffect } from './reply-modifiers.js';

export const TERMINAL_EFFECTS: Record<TerminalEffectKey, (rule: Rule) => TerminalEffect> = {
  error: createErrorEffect,
  a2a_error: createA2aErrorEffect,
  require: createRequireEffect,
  rate_limit: createRateLimitEffect,
  http: createHttpEffect,
  network: createNetworkEffect,
};

/** In the order they contribute to the plan. */
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
