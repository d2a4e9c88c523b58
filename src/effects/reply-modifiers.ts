/**
 * Modifiers that change the reply body: `patch` (RFC 6902 on the dealer's JSON), `envelope`
 * (shuffled or padded error data), `stream` (SSE faults) and `bandwidth` (a slow body).
 * Each only adds to the plan; the proxy carries the plan out.
 */
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';

export function createPatchEffect(rule: Rule): ModifierEffect {
  const ops = rule.patch!;
  const sentence = `patch: ${ops.map((o) => `${o.op} ${o.path}`).join(', ')}`;
  return { name: 'patch', terminal: false, explain: () => sentence, apply: (plan) => (plan.patches.push(ops), sentence) };
}

export function createEnvelopeEffect(rule: Rule): ModifierEffect {
  const spec = rule.envelope!;
  const sentence = `envelope: ${[spec.shuffle ? 'shuffled' : '', spec.unknown_detail ? 'unknown detail added' : ''].filter(Boolean).join(', ') || 'unchanged'}`;
  return {
    name: 'envelope',
    terminal: false,
    explain: () => sentence,
    apply: (plan, ctx) => {
      plan.envelope = { shuffle: (plan.envelope?.shuffle ?? false) || !!spec.shuffle, unknown_detail: (plan.envelope?.unknown_detail ?? false) || !!spec.unknown_detail, random: ctx.random };
      return sentence;
    },
  };
}

export function createStreamEffect(rule: Rule): ModifierEffect {
  const spec = rule.stream!;
  const sentence = `stream: ${[spec.delay_ms ? `${spec.delay_ms} ms per event` : '', spec.cut_after !== undefined ? `cut after ${spec.cut_after} events` : '', spec.error_after !== undefined ? `error after ${spec.error_after} events` : ''].filter(Boolean).join(', ')}`;
  return { name: 'stream', terminal: false, explain: () => sentence, apply: (plan) => ((plan.sse = { ...plan.sse, ...spec }), sentence) };
}

export function createBandwidthEffect(rule: Rule): ModifierEffect {
  const bps = rule.bandwidth!.bytes_per_s;
  const sentence = `bandwidth ${bps} bytes/s`;
  return {
    name: 'bandwidth',
    terminal: false,
    explain: () => sentence,
    // Two caps on one reply: the slower one wins.
    apply: (plan) => ((plan.bytesPerSecond = plan.bytesPerSecond ? Math.min(plan.bytesPerSecond, bps) : bps), sentence),
  };
}
