/**
 * `stream`: SSE faults, event by event: `delay_ms` before each event, `cut_after` breaks the
 * connection after N events, `error_after` sends an `event: error` frame (a JSON-RPC
 * INTERNAL_ERROR for the request's id) after N events and ends the stream. Only on a
 * text/event-stream reply; the stream rules that fire on one request combine (later keys win).
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { Profile } from '../protocol/codes.js';
import { buildAapError } from '../protocol/envelopes.js';
import { stringifyJsonRpc, type JsonRpcId } from '../protocol/rpc-id.js';
import type { Rule, StreamEffect } from '../scenario/types.generated.js';
import type { ModifierEffect } from './effect.js';
import { combinedStep, type StreamStep } from './reply-plan.js';

type StreamFaults = Pick<StreamEffect, 'delay_ms' | 'cut_after' | 'error_after'>;

interface SseStep extends StreamStep {
  faults: StreamFaults;
}

const SSE = 'text/event-stream';

export function createStreamEffect(rule: Rule): ModifierEffect {
  const spec = rule.stream!;
  const sentence = `stream: ${[spec.delay_ms ? `${spec.delay_ms} ms per event` : '', spec.cut_after !== undefined ? `cut after ${spec.cut_after} events` : '', spec.error_after !== undefined ? `error after ${spec.error_after} events` : ''].filter(Boolean).join(', ')}`;
  return {
    name: 'stream',
    terminal: false,
    explain: () => sentence,
    apply: (plan) => {
      const step = combinedStep(plan.stream, 'stream', (): SseStep => {
        const created: SseStep = {
          effect: 'stream',
          label: 'stream faults',
          onWholeBody: false,
          changesLength: true,
          faults: {},
          refuses: (contentType) => (contentType.startsWith(SSE) ? undefined : `content-type "${contentType}" is not ${SSE}`),
          transform: (at) => sseFaults(created.faults, at.id, at.profile),
        };
        return created;
      });
      step.faults = { ...step.faults, ...spec };
      return sentence;
    },
  };
}

/** The SSE faults as a transform of the event stream. */
export function sseFaults(opts: StreamFaults, id: JsonRpcId, profile: Profile): Transform {
  let pending = '';
  let sent = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const wait = (ms: number) => new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      if (stopped) return done();
      pending += chunk.toString('utf8');
      const events: string[] = [];
      let at: number;
      while ((at = pending.search(/\r?\n\r?\n/)) !== -1) {
        const end = pending.slice(at).startsWith('\r\n\r\n')
          ? at + 4
          : pending.slice(at).startsWith('\n\r\n') || pending.slice(at).startsWith('\r\n\n')
            ? at + 3
            : at + 2;
        events.push(pending.slice(0, end));
        pending = pending.slice(end);
      }
      void (async () => {
        for (const event of events) {
          if (stopped) break;
          if (opts.error_after !== undefined && sent >= opts.error_after) {
            const envelope = buildAapError(profile, 'INTERNAL_ERROR', id, { message: 'The dealer failed while streaming this reply.' });
            this.push(`event: error\ndata: ${stringifyJsonRpc(envelope)}\n\n`);
            stopped = true;
            this.push(null);
            break;
          }
          if (opts.cut_after !== undefined && sent >= opts.cut_after) {
            stopped = true;
            this.destroy(new Error('stream cut by scenario'));
            return;
          }
          if (opts.delay_ms) await wait(opts.delay_ms);
          this.push(event);
          sent++;
        }
        done();
      })();
    },
    flush(done) {
      if (!stopped && pending) this.push(pending);
      done();
    },
    destroy(err, cb) {
      if (timer) clearTimeout(timer);
      cb(err);
    },
  });
}
