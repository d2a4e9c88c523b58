/**
 * The reply rules: every reply (AAP-RPC-*), success replies (AAP-OK-*), the 2.0 header policy
 * (AAP-HDR-*) and event streams (AAP-SSE-*); error replies go to errors.ts.
 */
import { A2A_VERSION, AAP_SKILLS, type AapSkill } from '../codes.js';
import { checkError, checkInvalidRequestServed } from './errors.js';
import { headerText, type Exchange } from './exchange.js';
import { Findings, type Finding } from './rules.js';
import { responseProblems } from './schemas.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Methods that run AAP skill logic, which the required extension must be activated for. */
const SKILL_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);
const STREAM_RESULTS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Findings for one JSON-RPC exchange. A truncated copy that cannot be read whole yields none. */
export function checkReply(ex: Exchange): Finding[] {
  const f = new Findings(ex.profile);
  const contentType = headerText(ex.headers, 'content-type') ?? '';
  const text = typeof ex.body === 'string' ? ex.body : ex.body.toString('utf8');
  if (contentType.startsWith('text/event-stream')) {
    checkStream(f, ex, text);
    return f.list;
  }
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    if (!ex.truncated)
      f.expect(
        'AAP-RPC-001',
        false,
        '',
        'a JSON-RPC response object',
        `(${text.length === 0 ? 'an empty body' : 'a body that is not JSON'}, HTTP ${ex.status})`,
      );
    return f.list;
  }
  checkResponseObject(f, ex, reply, '');
  checkHeaderPolicy(f, ex, reply);
  return f.list;
}

/** AAP-RPC-001/002, then the success or error rules. `at` prefixes pointers inside a stream. */
function checkResponseObject(f: Findings, ex: Exchange, reply: unknown, at: string): void {
  if (!isObject(reply)) {
    f.expect('AAP-RPC-001', false, at, 'a JSON-RPC response object', reply);
    return;
  }
  const hasResult = 'result' in reply;
  const hasError = 'error' in reply;
  f.expect('AAP-RPC-001', reply.jsonrpc === '2.0', `${at}/jsonrpc`, '"2.0"', reply.jsonrpc);
  f.expect('AAP-RPC-001', hasResult !== hasError, at, 'exactly one of result or error', hasResult ? 'both' : 'neither');
  if (ex.request.id !== null) {
    f.expect(
      'AAP-RPC-002',
      reply.id === ex.request.id,
      `${at}/id`,
      `${JSON.stringify(ex.request.id)} (${typeOf(ex.request.id)})`,
      reply.id === undefined ? undefined : `${JSON.stringify(reply.id)} (${typeOf(reply.id)})`,
    );
  }
  if (hasError) checkError(f, ex, reply.error, `${at}/error`);
  else if (hasResult && !at) checkSuccess(f, ex, reply.result);
}

function checkSuccess(f: Findings, ex: Exchange, result: unknown): void {
  const { skill, method } = ex.request;
  if (method !== 'SendMessage' || skill === undefined) return;
  if (!(AAP_SKILLS as readonly string[]).includes(skill)) {
    f.expect('AAP-HDR-004', false, '/result', 'the AAP error UNSUPPORTED_SKILL', '(a success reply)');
    return;
  }
  checkInvalidRequestServed(f, ex);
  const message = isObject(result) ? result.message : undefined;
  if (!isObject(message)) {
    f.expect('AAP-OK-001', false, '/result/message', 'a Message (AAP answers message in, message out)', isObject(result) ? Object.keys(result) : result);
    return;
  }
  f.expect('AAP-OK-001', message.role === 'ROLE_AGENT', '/result/message/role', 'ROLE_AGENT', message.role);
  const ownId = typeof message.messageId === 'string' && message.messageId !== '' && message.messageId !== ex.request.messageId;
  f.expect('AAP-OK-001', ownId, '/result/message/messageId', "a messageId other than the request's", message.messageId);
  f.expect(
    'AAP-OK-002',
    typeof message.contextId === 'string' && message.contextId !== '',
    '/result/message/contextId',
    'a non-empty string',
    message.contextId,
  );

  const parts = Array.isArray(message.parts) ? message.parts : [];
  const want = `${skill}.response`;
  const at = parts.findIndex((p) => isObject(p) && isObject(p.data) && p.data.type === want);
  const seenTypes = parts.map((p) => (isObject(p) && isObject(p.data) ? p.data.type : '(not a DataPart)'));
  if (!f.expect('AAP-OK-003', at !== -1, '/result/message/parts', `a DataPart with data.type "${want}"`, seenTypes)) return;
  const base = `/result/message/parts/${at}/data/data`;
  const problems = responseProblems(skill as AapSkill, ((parts[at] as Json).data as Json).data);
  for (const p of problems) f.expect('AAP-OK-004', false, `${base}${p.pointer}`, p.message, '(does not match)');
  if (problems.length === 0) f.expect('AAP-OK-004', true, base, `the ${skill} response schema`, 'matches');
}

/** AAP-HDR-001/002/003: whether the reply follows what the buyer's headers called for. */
function checkHeaderPolicy(f: Findings, ex: Exchange, reply: unknown): void {
  const { request } = ex;
  if (request.method === undefined) return;
  const code = isObject(reply) && isObject(reply.error) ? reply.error.code : undefined;
  const uri = ex.extensionUri;
  const required = ex.extensionRequired ?? ex.profile === '2.0';
  const versionBad = request.a2aVersion !== A2A_VERSION;
  const extensionMissing = uri !== undefined && required && SKILL_METHODS.has(request.method) && !request.extensions.includes(uri);
  // Which refusal wins when both headers are wrong is left open by the draft: either one will do.
  if (extensionMissing)
    f.expect(
      'AAP-HDR-001',
      code === -32008 || (versionBad && code === -32009),
      '/error/code',
      versionBad ? '-32008 or -32009' : '-32008',
      code ?? '(a success reply)',
    );
  if (versionBad) {
    const what = request.a2aVersion === undefined ? 'absent' : JSON.stringify(request.a2aVersion);
    f.expect(
      'AAP-HDR-002',
      code === -32009 || (extensionMissing && code === -32008),
      '/error/code',
      `-32009 for an A2A-Version ${what}`,
      code ?? '(a success reply)',
    );
  }
  const activated = uri !== undefined && request.extensions.includes(uri) && !versionBad && code !== -32008;
  if (activated) {
    const echoed = (headerText(ex.headers, 'a2a-extensions') ?? '').split(',').map((s) => s.trim());
    f.expect('AAP-HDR-003', echoed.includes(uri), '(response header A2A-Extensions)', uri, headerText(ex.headers, 'a2a-extensions'));
  }
}

/** AAP-SSE-*: every complete event of a stream; error events go through the error rules too. */
function checkStream(f: Findings, ex: Exchange, text: string): void {
  const events = text.split(/\r?\n\r?\n/);
  // The last piece is only complete when the copy holds the whole stream.
  if (ex.truncated) events.pop();
  events.forEach((raw, i) => {
    const data = raw
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data === '') return;
    const at = `/events/${i}`;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      f.expect('AAP-SSE-001', false, at, 'a JSON-RPC response', '(not JSON)');
      return;
    }
    const ok = isObject(event) && event.jsonrpc === '2.0' && 'result' in event !== 'error' in event && event.id === ex.request.id;
    f.expect(
      'AAP-SSE-001',
      ok,
      at,
      `a JSON-RPC 2.0 response with id ${JSON.stringify(ex.request.id)}`,
      isObject(event) ? { jsonrpc: event.jsonrpc, id: event.id } : event,
    );
    if (!isObject(event)) return;
    if (isObject(event.result)) {
      const present = STREAM_RESULTS.filter((k) => k in (event.result as Json));
      f.expect('AAP-SSE-002', present.length === 1, `${at}/result`, 'exactly one of task, message, statusUpdate, artifactUpdate', Object.keys(event.result));
    } else if ('error' in event) {
      checkError(f, ex, event.error, `${at}/error`);
    }
  });
}
