/**
 * The registry: the key a user writes in a rule → the effect that implements it. Both records
 * are generated from the schema's `x-aap-effect` annotations (registry.generated.ts): an effect
 * the schema declares without its file, or with a factory of the wrong kind, does not compile.
 * Adding an effect means the schema, one effect file and its test; `npm run gen:types` does the rest.
 */
import type { Rule } from '../scenario/types.generated.js';
import { MODIFIER_EFFECTS as MODIFIER_KEYS } from '../scenario/effect-keys.generated.js';
import { normaliseErrorForm, terminalEffectsOf } from '../scenario/effect-kinds.js';
import type { ModifierEffect, TerminalEffect } from './effect.js';
import { MODIFIER_EFFECTS, TERMINAL_EFFECTS } from './registry.generated.js';

export { MODIFIER_EFFECTS, TERMINAL_EFFECTS } from './registry.generated.js';

/** A rule's effects: its terminal one (validation allows one), and its modifiers in the schema's order. */
export function effectsOf(written: Rule): { terminal?: TerminalEffect; modifiers: ModifierEffect[] } {
  const rule = normaliseErrorForm(written);
  const [terminalKey] = terminalEffectsOf(rule);
  const terminal = terminalKey ? TERMINAL_EFFECTS[terminalKey](rule) : undefined;
  const modifiers = MODIFIER_KEYS.filter((key) => rule[key] !== undefined).map((key) => MODIFIER_EFFECTS[key](rule));
  return { terminal, modifiers };
}
