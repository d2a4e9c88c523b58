/**
 * The registry: the key a user writes in a rule → the effect that implements it.
 * Adding an effect means one file and one line here.
 */
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect, TerminalEffect } from './effect.js';
import { createA2aErrorEffect, createErrorEffect } from './terminal-errors.js';
import { createRequireEffect } from './require.js';
import { createRateLimitEffect } from './rate-limit.js';
import { createHttpEffect } from './http.js';
import { createNetworkEffect } from './network.js';
import { createDelayEffect } from './delay.js';
import { createBandwidthEffect, createEnvelopeEffect, createPatchEffect, createStreamEffect } from './reply-modifiers.js';

export const TERMINAL_EFFECTS: Record<string, (rule: Rule) => TerminalEffect> = {
  error: createErrorEffect,
  a2a_error: createA2aErrorEffect,
  require: createRequireEffect,
  rate_limit: createRateLimitEffect,
  http: createHttpEffect,
  network: createNetworkEffect,
};

/** In the order they contribute to the plan. */
export const MODIFIER_EFFECTS: Record<string, (rule: Rule) => ModifierEffect> = {
  delay: createDelayEffect,
  patch: createPatchEffect,
  envelope: createEnvelopeEffect,
  stream: createStreamEffect,
  bandwidth: createBandwidthEffect,
};

export function effectsOf(rule: Rule): { terminal?: TerminalEffect; modifiers: ModifierEffect[] } {
  let terminal: TerminalEffect | undefined;
  for (const key of Object.keys(TERMINAL_EFFECTS)) {
    if ((rule as unknown as Record<string, unknown>)[key] !== undefined) {
      terminal = TERMINAL_EFFECTS[key]!(rule);
      break; // the schema allows one terminal effect per rule
    }
  }
  const modifiers = Object.keys(MODIFIER_EFFECTS)
    .filter((key) => (rule as unknown as Record<string, unknown>)[key] !== undefined)
    .map((key) => MODIFIER_EFFECTS[key]!(rule));
  return { terminal, modifiers };
}
