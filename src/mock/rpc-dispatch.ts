/**
 * POST /a2a, read top to bottom: content type → body → classify → header policy → method.
 * Every error reply comes from src/protocol/envelopes.ts and travels on HTTP 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_VERSION, EXTENSIONS_HEADER, type Profile } from '../protocol/codes.js';
import { classifyRequest, type ClassifiedRequest } from '../protocol/classify.js';
import {
  buildA2aError,
  buildAapError,
  buildExtensionRequired,
  buildVersionNotSupported,
  type JsonRpcErrorResponse,
  type JsonRpcId,
} from '../protocol/envelopes.js';
import { readBody, sendJson } from './http-io.js';
import { callSkill } from './skill-call.js';
import type { SkillContext } from './skills/index.js';
import { readListTasksParams } from '../protocol/list-tasks.js';
import { callerOf } from './caller.js';
import { taskStreamEvents, writeEventStream } from './task-stream.js';
import type { TaskStore } from './task-store.js';
import { breakConnection } from '../http/reply-connection.js';

export interface RpcSettings {
  profile: Profile;
  extensionUri: string;
  streaming: boolean;
  streamGapMs?: number;
  skillContext: SkillContext;
  tasks: TaskStore;
}

/** Methods that run AAP skill logic: the ones the required extension must be activated for. */
const SKILL_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);
const PUSH_CONFIG_METHOD = /^(Create|Get|List|Delete)TaskPushNotificationConfigs?$/;

/** JSON-RPC 2.0 ids are strings, numbers or null (or absent); anything else makes the request invalid. */
function isValidRpcId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

function isJsonContentType(value: string | undefined): boolean {
  const mediaType = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * The header policy. A2A-Version: a version stated and not served is -32009 under both profiles
 * (A2A §3.6.2; an empty value states 0.3); an absent header is -32009 only under the 2.0 draft,
 * since the 1.3 binding never mentions the header and 1.3 buyers do not send it. A2A-Extensions
 * is enforced under 2.0 only.
 */
function headerPolicyError(settings: RpcSettings, request: ClassifiedRequest): JsonRpcErrorResponse | undefined {
  const version = request.a2aVersion;
  if (version !== A2A_VERSION && (version !== undefined || settings.profile === '2.0')) return buildVersionNotSupported(version, request.id);
  if (settings.profile !== '2.0') return undefined;
  if (SKILL_METHODS.has(request.rpcMethod ?? '') && !request.extensions.includes(settings.extensionUri)) {
    return buildExtensionRequired(settings.extensionUri, request.id);
  }
  return undefined;
}

export async function handleRpc(settings: RpcSettings, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!isJsonContentType(req.headers['content-type'])) {
    sendJson(
      res,
      200,
      buildA2aError('CONTENT_TYPE_NOT_SUPPORTED', null, {
        message: `Content-Type '${req.headers['content-type'] ?? ''}' is not supported; send application/json.`,
      }),
    );
    return;
  }
  const read = await readBody(req);
  if (!read.ok) {
    // HTTP's own answer to a body too large, after reading it through: a proxy in front still sending it gets the reply, not a broken pipe.
    if (read.reason === 'too-large') {
      sendJson(
        res,
        413,
        buildA2aError('INVALID_REQUEST', null, { message: 'Invalid request: the body exceeds 1 MiB.' }),
        read.drained ? {} : { connection: 'close' },
      );
    }
    return;
  }
  const request = classifyRequest({
    method: req.method ?? 'POST',
    url: req.url ?? '/',
    headers: req.headers,
    clientIp: req.socket.remoteAddress ?? '',
    body: read.body,
  });
  // Echo the activated extension (A2A §3.2.6), under either profile, whatever the outcome.
  const headers: Record<string, string> = request.extensions.includes(settings.extensionUri) ? { [EXTENSIONS_HEADER]: settings.extensionUri } : {};
  const reply = (body: unknown): void => sendJson(res, 200, body, headers);

  switch (request.kind) {
    case 'none':
    case 'not-json':
      return reply(buildA2aError('PARSE_ERROR', null));
    case 'batch':
      return reply(buildA2aError('INVALID_REQUEST', null, { message: 'Invalid request: JSON-RPC batches are not supported.' }));
    case 'not-jsonrpc':
    case 'oversized':
      return reply(buildA2aError('INVALID_REQUEST', request.id));
    case 'jsonrpc':
      break;
  }
  if (!isValidRpcId(request.body?.id))
    return reply(buildA2aError('INVALID_REQUEST', null, { message: 'Invalid request: id must be a string, a number or null.' }));
  const policyError = headerPolicyError(settings, request);
  if (policyError) return reply(policyError);
  try {
    await dispatchMethod(settings, request, res, headers);
  } catch {
    // A bug in skill logic answers INTERNAL_ERROR for this request id, never a stack trace.
    if (!res.headersSent) reply(buildAapError(settings.profile, 'INTERNAL_ERROR', request.id));
    else breakConnection(res);
  }
}

async function dispatchMethod(settings: RpcSettings, request: ClassifiedRequest, res: ServerResponse, headers: Record<string, string>): Promise<void> {
  const reply = (body: unknown): void => sendJson(res, 200, body, headers);
  const id = request.id;
  const params = request.body?.params;
  const method = request.rpcMethod!;
  const caller = callerOf(request.headers);
  // A message continuing a task must name one this dealer has (A2A: TaskNotFoundError).
  const continued = (params as { message?: { taskId?: unknown } } | undefined)?.message?.taskId;
  if (SKILL_METHODS.has(method) && typeof continued === 'string' && continued !== '' && !settings.tasks.get(continued, caller)) {
    return reply(buildA2aError('TASK_NOT_FOUND', id, { message: `Task ${continued} not found: message.taskId names no task of this dealer.` }));
  }
  switch (method) {
    case 'SendMessage': {
      const result = callSkill(settings.profile, id, params, settings.skillContext);
      return reply(result.ok ? { jsonrpc: '2.0', id, result: { message: result.message } } : result.envelope);
    }
    case 'SendStreamingMessage': {
      if (!settings.streaming) return reply(unsupported(id, 'Streaming is not enabled on this dealer (capabilities.streaming is false).'));
      const result = callSkill(settings.profile, id, params, settings.skillContext);
      // A failure before the first event is a plain JSON reply, as A2A servers do.
      if (!result.ok) return reply(result.envelope);
      const { events, finished } = taskStreamEvents(result.skill, result.message);
      settings.tasks.save(finished, caller);
      return writeEventStream(res, id, events, headers, settings.streamGapMs);
    }
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask': {
      if (method === 'SubscribeToTask' && !settings.streaming) return reply(unsupported(id, 'SubscribeToTask needs streaming, which is not enabled.'));
      const task = settings.tasks.get((params as { id?: unknown } | undefined)?.id, caller);
      if (!task) return reply(buildA2aError('TASK_NOT_FOUND', id));
      if (method === 'GetTask') return reply({ jsonrpc: '2.0', id, result: task });
      if (method === 'CancelTask') return reply(buildA2aError('TASK_NOT_CANCELABLE', id, { message: `Task ${task.id} has already completed.` }));
      return reply(unsupported(id, `Task ${task.id} has already completed; there is nothing to subscribe to.`));
    }
    case 'ListTasks': {
      // A core operation with no capability gating it: without streaming the dealer holds no tasks, so the page is empty.
      const read = readListTasksParams(params);
      if (!read.ok) return reply(invalidParams(id, `${read.problem.field} ${read.problem.problem}`));
      const page = settings.tasks.list(caller, read.query);
      if (!page) return reply(invalidParams(id, '/params/pageToken is not a nextPageToken this dealer issued'));
      return reply({ jsonrpc: '2.0', id, result: page });
    }
    case 'GetExtendedAgentCard':
      return reply(unsupported(id, 'No extended agent card is offered (capabilities.extendedAgentCard is false).'));
    default:
      if (PUSH_CONFIG_METHOD.test(method)) return reply(buildA2aError('PUSH_NOTIFICATION_NOT_SUPPORTED', id));
      return reply(buildA2aError('METHOD_NOT_FOUND', id, { message: `Method not found: ${method}.` }));
  }
}

function invalidParams(id: JsonRpcId, problem: string): JsonRpcErrorResponse {
  return buildA2aError('INVALID_PARAMS', id, { message: `Invalid params: ${problem}.` });
}

function unsupported(id: JsonRpcId, message: string): JsonRpcErrorResponse {
  return buildA2aError('UNSUPPORTED_OPERATION', id, { message });
}
