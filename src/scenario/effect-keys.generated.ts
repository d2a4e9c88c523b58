/* Generated from schema/scenario.schema.json by scripts/gen-scenario-types.mjs. Do not edit by hand. */

/** Rule keys whose effect may answer instead of the dealer (at most one per rule). */
export const TERMINAL_EFFECTS = ['error', 'a2a_error', 'require', 'rate_limit', 'http', 'network'] as const;
/** Rule keys whose effect changes how the answer travels, in the order their reply steps run. */
export const MODIFIER_EFFECTS = ['delay', 'patch', 'envelope', 'stream', 'bandwidth', 'card'] as const;

export type TerminalEffectKey = (typeof TERMINAL_EFFECTS)[number];
export type ModifierEffectKey = (typeof MODIFIER_EFFECTS)[number];
export type EffectKey = TerminalEffectKey | ModifierEffectKey;
