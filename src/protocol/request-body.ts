/**
 * A recorded request sent again: the JSON-RPC request a buyer would send for it, with a fresh
 * messageId (A2A wants one per message) and the recorded DataPart or params.
 */
import { newUlid } from './ids.js';

export interface RequestToResend {
  method: string;
  id: string | number | null;
  skill?: string;
  part?: Record<string, unknown>;
  params?: unknown;
}

export function resendBody(request: RequestToResend): Record<string, unknown> {
  const params = request.part !== undefined ? { message: { messageId: `m-${newUlid()}`, role: 'ROLE_USER', parts: [request.part] } } : request.params;
  return { jsonrpc: '2.0', id: request.id, method: request.method, ...(params !== undefined ? { params } : {}) };
}

/** Methods whose reply is an SSE stream. */
export function repliesWithStream(method: string): boolean {
  return method === 'SendStreamingMessage' || method === 'SubscribeToTask' || method === 'message/stream' || method === 'tasks/resubscribe';
}
