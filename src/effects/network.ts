/** `network`: a broken transport — reset, hang, malformed JSON, or the real reply cut short. */
import { rpcIdJson, type JsonRpcId } from '../protocol/rpc-id.js';
import type { Rule } from '../scenario/types.generated.js';
import type { EffectContext, TerminalAction, TerminalEffect } from './effect.js';

/** How long `hang` holds a request when the rule gives no bound (the buyer usually gives up first). */
export const DEFAULT_HANG_MS = 30_000;

/** A reply that starts like a success and stops mid-object: what a buyer's JSON parser must survive. */
export function malformedJsonBody(id: JsonRpcId): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${rpcIdJson(id)},"result":{"message":{"role":"ROLE_AGENT","parts":[{"data":{"type":`);
}

export function createNetworkEffect(rule: Rule): TerminalEffect {
  const spec = rule.network!;
  let action: (ctx: EffectContext) => TerminalAction;
  let sentence: string;
  const fixed = (a: TerminalAction) => () => a;
  if (spec === 'reset') [action, sentence] = [fixed({ type: 'reset' }), 'connection reset'];
  else if (spec === 'hang') [action, sentence] = [fixed({ type: 'hang', maxMs: DEFAULT_HANG_MS }), 'hang until the buyer gives up'];
  else if (spec === 'malformed_json')
    [action, sentence] = [
      (ctx) => ({
        type: 'reply',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: malformedJsonBody(ctx.request.id),
        bodyKind: 'malformed_json',
      }),
      'malformed JSON reply',
    ];
  else if (spec.truncate_bytes !== undefined)
    [action, sentence] = [fixed({ type: 'truncate', bytes: spec.truncate_bytes }), `reply cut after ${spec.truncate_bytes} bytes`];
  else [action, sentence] = [fixed({ type: 'hang', maxMs: spec.hang_ms! }), `hang ${spec.hang_ms} ms, then close`];
  return { name: 'network', terminal: true, explain: () => sentence, decide: (ctx) => ({ action: action(ctx), explain: sentence }) };
}
