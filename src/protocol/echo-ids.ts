/**
 * The ids a dealer echoes from a request into its reply: the JSON-RPC `id`, and the message's
 * `taskId` and `contextId` (A2A continues a task or a conversation by them). A reply given again
 * to a new request (a replay) must carry the new request's ids, or the buyer takes it for a stray.
 */
import type { JsonRpcId } from './rpc-id.js';

export interface EchoedIds {
  id: JsonRpcId;
  /** The live message's task and context, when it named them (GetTask's `params.id` is its task). */
  taskId?: string;
  contextId?: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The ids of a parsed JSON-RPC request that its reply echoes. */
export function idsToEcho(id: JsonRpcId, params: unknown): EchoedIds {
  const p = params as { message?: { taskId?: unknown; contextId?: unknown }; id?: unknown } | undefined;
  return { id, taskId: text(p?.message?.taskId) ?? text(p?.id), contextId: text(p?.message?.contextId) };
}

const MAX_DEPTH = 32;

function echoInside(value: unknown, ids: EchoedIds, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => echoInside(v, ids, depth + 1));
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  // A task object: its own id is the task id (it carries its contextId beside it).
  const isTask = 'contextId' in record && 'status' in record;
  for (const [k, v] of Object.entries(record)) {
    if (k === 'contextId' && ids.contextId !== undefined) out[k] = ids.contextId;
    else if ((k === 'taskId' || (k === 'id' && isTask)) && ids.taskId !== undefined) out[k] = ids.taskId;
    else out[k] = echoInside(v, ids, depth + 1);
  }
  return out;
}

/** A JSON-RPC response (or SSE event payload) answering the request whose ids are `ids`. */
export function echoIds(reply: unknown, ids: EchoedIds): unknown {
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) return reply;
  const out = echoInside(reply, ids, 0) as Record<string, unknown>;
  if ('jsonrpc' in out) out.id = ids.id;
  return out;
}
