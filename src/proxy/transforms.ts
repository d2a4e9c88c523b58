/**
 * How the proxy carries out a reply plan's body changes: JSON patches and envelope faults on
 * whole JSON replies, event-by-event faults on SSE streams, and a bandwidth cap.
 */
import { Transform, type TransformCallback } from 'node:stream';
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { ReplyPlan } from '../effects/effect.js';
import type { Profile } from '../protocol/codes.js';
import { applyEnvelopeFaults } from '../protocol/envelope-faults.js';
import { buildAapError } from '../protocol/envelopes.js';
import { rpcIdJson, stringifyJsonRpc, type JsonRpcId } from '../protocol/rpc-id.js';

const { applyPatch } = fastJsonPatch;

/** Applies the plan's patches, then its envelope faults. A patch that does not apply is skipped and noted. */
export function applyJsonPlan(json: unknown, plan: ReplyPlan, profile: Profile, notes: string[]): unknown {
  let doc = json;
  for (const ops of plan.patches) {
    try {
      doc = applyPatch(doc, ops as Operation[], true, false).newDocument;
    } catch (err) {
      notes.push(`patch not applied: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (plan.envelope) {
    const { reply, changed, reason } = applyEnvelopeFaults(doc, plan.envelope, profile, plan.envelope.random);
    if (!changed) notes.push(`envelope faults not applied: ${reason}`);
    doc = reply;
  }
  return doc;
}

/** A reply that starts like a success and stops mid-object: what a buyer's JSON parser must survive. */
export function malformedJsonBody(id: JsonRpcId): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${rpcIdJson(id)},"result":{"message":{"role":"ROLE_AGENT","parts":[{"data":{"type":`);
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

/**
 * SSE faults, event by event: `delay_ms` before each event, `cut_after` breaks the connection
 * after N events, `error_after` sends an `event: error` frame (a JSON-RPC INTERNAL_ERROR for the
 * request's id) after N events and ends the stream.
 */
export function sseFaults(opts: { delay_ms?: number; cut_after?: number; error_after?: number }, id: JsonRpcId, profile: Profile): Transform {
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
        const end = pending.slice(at).startsWith('\r\n\r\n') ? at + 4 : pending.slice(at).startsWith('\n\r\n') || pending.slice(at).startsWith('\r\n\n') ? at + 3 : at + 2;
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
