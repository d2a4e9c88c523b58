/* Generated from schema/scenario.schema.json by scripts/gen-scenario-types.mjs. Do not edit by hand. */
// Each effect key of the schema maps to src/effects/<key, _ as ->.ts and its create<Key>Effect.
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffectKey, TerminalEffectKey } from '../scenario/effect-keys.generated.js';
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

export const MODIFIER_EFFECTS: Record<ModifierEffectKey, (rule: Rule) => ModifierEffect> = {
  delay: createDelayEffect,
  patch: createPatchEffect,
  envelope: createEnvelopeEffect,
  stream: createStreamEffect,
  bandwidth: createBandwidthEffect,
  card: createCardEffect,
};
