/**
 * Gives a recorded reply again, to a new request: status, headers and body as recorded, with the
 * live request's JSON-RPC id, taskId and contextId echoed into it; an SSE reply event by event,
 * each at its recorded offset from the request's start divided by the replay speed.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { echoIds, type EchoedIds } from '../protocol/echo-ids.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import type { RecordedReply } from '../recording/format.js';
import { sseFrame } from '../recording/sse-events.js';

export async function serveRecorded(res: ServerResponse, reply: RecordedReply, ids: EchoedIds, timing: { startedAt: number; speed: number }): Promise<void> {
  const headers: Record<string, string | string[] | number> = { ...reply.headers };
  if (reply.events) {
    res.writeHead(reply.status, headers);
    res.flushHeaders();
    for (const event of reply.events) {
      // Absolute times from the request's start: a late timer does not push every later event back.
      const wait = timing.startedAt + event.offset_ms / timing.speed - performance.now();
      if (wait > 0) await sleep(wait);
      if (res.destroyed) return;
      res.write(sseFrame(event, event.data === undefined ? undefined : echoIds(event.data, ids)));
    }
    res.end();
    return;
  }
  let body: Buffer;
  if (reply.body !== undefined) body = Buffer.from(stringifyJsonRpc(echoIds(reply.body, ids)));
  else if (reply.text !== undefined) body = Buffer.from(reply.text);
  else if (reply.base64 !== undefined) body = Buffer.from(reply.base64, 'base64');
  else body = Buffer.alloc(0);
  headers['content-length'] = body.length;
  res.writeHead(reply.status, headers);
  res.end(body);
}
