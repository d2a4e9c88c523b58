/** `network`: a broken transport — reset, hang, malformed JSON, or the real reply cut short. */
import type { Rule } from '../scenario/types.generated.js';
import type { TerminalAction, TerminalEffect } from './effect.js';

/** How long `hang` holds a request when the rule gives no bound (the buyer usually gives up first). */
export const DEFAULT_HANG_MS = 30_000;

export function createNetworkEffect(rule: Rule): TerminalEffect {
  const spec = rule.network!;
  let action: TerminalAction;
  let sentence: string;
  if (spec === 'reset') [action, sentence] = [{ type: 'reset' }, 'connection reset'];
  else if (spec === 'hang') [action, sentence] = [{ type: 'hang', maxMs: DEFAULT_HANG_MS }, 'hang until the buyer gives up'];
  else if (spec === 'malformed_json') [action, sentence] = [{ type: 'malformed_json' }, 'malformed JSON reply'];
  else if (spec.truncate_bytes !== undefined) [action, sentence] = [{ type: 'truncate', bytes: spec.truncate_bytes }, `reply cut after ${spec.truncate_bytes} bytes`];
  else [action, sentence] = [{ type: 'hang', maxMs: spec.hang_ms! }, `hang ${spec.hang_ms} ms, then close`];
  return { name: 'network', terminal: true, explain: () => sentence, decide: () => ({ action, explain: sentence }) };
}
