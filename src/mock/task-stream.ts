/**
 * SendStreamingMessage: the skill reply delivered as an A2A task stream (task submitted, status
 * working, artifact update, status completed), one SSE frame at a time with a short gap so stream
 * faults can act between frames. The finished task is kept (task-store.ts) for GetTask and ListTasks.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { stringifyJsonRpc, type JsonRpcId } from '../protocol/rpc-id.js';
import type { AgentMessage } from './skill-call.js';
import type { SkillId } from './skill-table.js';
import type { Task } from './task-store.js';

export const FRAME_GAP_MS = 5;

const status = (state: string): Task['status'] => ({ state, timestamp: new Date().toISOString() });

/** The stream's events, in the order A2A requires: Task first, terminal status last. */
export function taskStreamEvents(skill: SkillId, reply: AgentMessage): { events: Record<string, unknown>[]; finished: Task } {
  const taskId = randomUUID();
  const contextId = reply.contextId;
  const artifact = { artifactId: randomUUID(), name: `${skill}.response`, parts: reply.parts };
  const finished: Task = { id: taskId, contextId, status: status('TASK_STATE_COMPLETED'), artifacts: [artifact] };
  return {
    events: [
      { task: { id: taskId, contextId, status: status('TASK_STATE_SUBMITTED') } },
      { statusUpdate: { taskId, contextId, status: status('TASK_STATE_WORKING') } },
      { artifactUpdate: { taskId, contextId, artifact, append: false, lastChunk: true } },
      { statusUpdate: { taskId, contextId, status: finished.status } },
    ],
    finished,
  };
}

/** Writes each event as `data: <JSON-RPC response>\n\n`; stops quietly if the buyer goes away. */
export async function writeEventStream(
  res: ServerResponse,
  id: JsonRpcId,
  events: Record<string, unknown>[],
  headers: Record<string, string>,
  gapMs = FRAME_GAP_MS,
): Promise<void> {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  for (const [i, result] of events.entries()) {
    if (res.destroyed) return;
    if (i > 0) await delay(gapMs);
    res.write(`data: ${stringifyJsonRpc({ jsonrpc: '2.0', id, result })}\n\n`);
  }
  res.end();
}
