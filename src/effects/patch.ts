/**
 * `patch`: RFC 6902 operations on the dealer's JSON reply (success or error). Each rule's list
 * is one step; a list that does not apply is skipped and noted, the others still apply.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';
import { addStep, type JsonStep } from './reply-plan.js';

const { applyPatch } = fastJsonPatch;

/** Applies one operation list; the document unchanged and the first line of the reason when it fails. */
export function patchJson(doc: unknown, ops: unknown[]): { doc: unknown } | { notApplied: string } {
  try {
    return { doc: applyPatch(doc, ops as Operation[], true, false).newDocument };
  } catch (err) {
    return { notApplied: (err as Error).message.split('\n')[0]! };
  }
}

export function createPatchEffect(rule: Rule): ModifierEffect {
  const ops = rule.patch!;
  const sentence = `patch: ${ops.map((o) => `${o.op} ${o.path}`).join(', ')}`;
  const step: JsonStep = { effect: 'patch', label: 'patch', onInjected: false, apply: (doc) => patchJson(doc, ops) };
  return { name: 'patch', terminal: false, explain: () => sentence, apply: (plan) => (addStep(plan.json, step), sentence) };
}
