/**
 * `bandwidth`: a slow body, on every reply the buyer gets (the dealer's, changed or not, and the
 * ones the proxy writes itself). Two caps on one reply: the slower one wins.
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { Rule } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';
import { combinedStep, type StreamStep } from './reply-plan.js';

interface ThrottleStep extends StreamStep {
  bytesPerSecond: number;
}

export function createBandwidthEffect(rule: Rule): ModifierEffect {
  const bps = rule.bandwidth!.bytes_per_s;
  const sentence = `bandwidth ${bps} bytes/s`;
  return {
    name: 'bandwidth',
    terminal: false,
    explain: () => sentence,
    apply: (plan) => {
      const step = combinedStep(plan.stream, 'bandwidth', (): ThrottleStep => {
        const created: ThrottleStep = {
          effect: 'bandwidth',
          label: 'bandwidth',
          onWholeBody: true,
          changesLength: false,
          bytesPerSecond: Infinity,
          transform: () => throttle(created.bytesPerSecond),
        };
        return created;
      });
      step.bytesPerSecond = Math.min(step.bytesPerSecond, bps);
      return sentence;
    },
  };
}

/** Slows a body to `bytesPerSecond`, in slices of about 1/20 s each. */
export function throttle(bytesPerSecond: number): Transform {
  const slice = Math.max(1, Math.floor(bytesPerSecond / 20));
  let timer: NodeJS.Timeout | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      let offset = 0;
      const next = () => {
        if (offset >= chunk.length) return done();
        const piece = chunk.subarray(offset, offset + slice);
        offset += piece.length;
        this.push(piece);
        timer = setTimeout(next, (piece.length / bytesPerSecond) * 1000);
      };
      next();
    },
    destroy(err, cb) {
      if (timer) clearTimeout(timer);
      cb(err);
    },
  });
}
