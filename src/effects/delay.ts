/**
 * `delay`: latency before the reply, drawn from the scenario's seeded generator.
 * uniform: ms ± jitter_ms; normal: mean ms, deviation jitter_ms; lognormal: median ms with a long
 * tail (sigma = jitter_ms / ms); fixed: exactly ms. Never below zero.
 */
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';

function standardNormal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) is not a number
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function createDelayEffect(rule: Rule): ModifierEffect {
  const { ms = 0, jitter_ms: jitter = 0 } = rule.delay!;
  const distribution = rule.delay!.distribution ?? (jitter ? 'uniform' : 'fixed');
  const draw = (random: () => number): number => {
    switch (distribution) {
      case 'fixed':
        return ms;
      case 'uniform':
        return ms + (random() * 2 - 1) * jitter;
      case 'normal':
        return ms + standardNormal(random) * jitter;
      case 'lognormal':
        return ms > 0 ? ms * Math.exp(standardNormal(random) * (jitter / ms)) : 0;
    }
  };
  const sentence = `delay ${ms} ms${jitter && distribution !== 'fixed' ? ` ± ${jitter} (${distribution})` : ''}`;
  return {
    name: 'delay',
    terminal: false,
    explain: () => sentence,
    apply: (plan, ctx) => {
      const d = Math.max(0, Math.round(draw(ctx.random)));
      plan.delayMs += d;
      return `delay ${d} ms`;
    },
  };
}
