/**
 * `envelope`: faults of a JSON-RPC error envelope's shape — its data entries shuffled, an
 * unknown detail added — on the dealer's error or on one a terminal effect injected. The
 * envelope rules that fire on one request combine into one step (their flags or-ed), so the
 * shuffle is drawn once from the scenario's seeded generator.
 */
import { applyEnvelopeFaults } from '../protocol/envelope-faults.js';
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';
import { combinedStep, type JsonStep } from './reply-plan.js';

interface EnvelopeStep extends JsonStep {
  faults: { shuffle: boolean; unknown_detail: boolean };
  random: () => number;
}

export function createEnvelopeEffect(rule: Rule): ModifierEffect {
  const spec = rule.envelope!;
  const sentence = `envelope: ${[spec.shuffle ? 'shuffled' : '', spec.unknown_detail ? 'unknown detail added' : ''].filter(Boolean).join(', ') || 'unchanged'}`;
  return {
    name: 'envelope',
    terminal: false,
    explain: () => sentence,
    apply: (plan, ctx) => {
      const step = combinedStep(plan.json, 'envelope', (): EnvelopeStep => {
        const created: EnvelopeStep = {
          effect: 'envelope',
          label: 'envelope faults',
          onInjected: true,
          faults: { shuffle: false, unknown_detail: false },
          random: ctx.random,
          apply: (doc, at) => {
            const { reply, changed, reason } = applyEnvelopeFaults(doc, created.faults, at.profile, created.random);
            return changed ? { doc: reply } : { notApplied: reason! };
          },
        };
        return created;
      });
      step.faults.shuffle ||= !!spec.shuffle;
      step.faults.unknown_detail ||= !!spec.unknown_detail;
      step.random = ctx.random;
      return sentence;
    },
  };
}
