/** What every skill handler receives and returns; the dispatcher turns outcomes into JSON-RPC replies. */
import type { AapErrorOptions } from '../../protocol/envelopes.js';
import type { AapCode } from '../../protocol/codes.js';
import type { Inventory } from '../inventory.js';
import type { LeadStore } from '../lead-store.js';

export interface SkillContext {
  inventory: Inventory;
  leads: LeadStore;
  now(): Date;
}

export type SkillOutcome = { ok: true; data: Record<string, unknown>; message?: string } | { ok: false; code: AapCode; options: AapErrorOptions };

/** `request` has already passed the skill's JSON Schema. */
export type SkillHandler = (request: Record<string, unknown>, ctx: SkillContext) => SkillOutcome;

export const success = (data: Record<string, unknown>, message?: string): SkillOutcome =>
  message === undefined ? { ok: true, data } : { ok: true, data, message };

export const failure = (code: AapCode, options: AapErrorOptions = {}): SkillOutcome => ({ ok: false, code, options });
