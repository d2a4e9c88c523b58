/**
 * Classifies a buyer request once: JSON-RPC method and id, AAP skill, A2A headers, client key.
 * Classification never throws: anything it cannot read is labelled and still forwarded unchanged.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { exactRpcId, type JsonRpcId } from './rpc-id.js';

export type BodyKind =
  | 'none' // no body (GET, empty POST)
  | 'jsonrpc' // a single JSON-RPC 2.0 request object
  | 'not-json' // bytes that do not parse as JSON
  | 'not-jsonrpc' // JSON, but not a JSON-RPC request object
  | 'batch' // a JSON array (JSON-RPC batch)
  | 'oversized'; // larger than --max-inspect-bytes; not inspected

export interface ClassifiedRequest {
  httpMethod: string;
  /** Path and query as the buyer sent them. */
  url: string;
  /** Path without the query string. */
  path: string;
  kind: BodyKind;
  /** JSON-RPC method, when kind is jsonrpc. */
  rpcMethod?: string;
  /** JSON-RPC id with its exact type; null when absent or not readable (what an error must echo). */
  id: JsonRpcId;
  /** AAP skill id from the first DataPart whose data.type ends in `.request`. */
  skill?: string;
  /** DataPart `data` of that part (what skills and report hashes look at). */
  skillData?: Record<string, unknown>;
  /** A2A-Version: undefined when absent, '' when empty. */
  a2aVersion?: string;
  /** A2A-Extensions: trimmed, de-duplicated URIs. */
  extensions: string[];
  /** The remote address of the buyer. */
  clientIp: string;
  /** The request headers as Node parsed them (names lower-cased). */
  headers: IncomingHttpHeaders;
  /** The parsed JSON-RPC request, when kind is jsonrpc. */
  body?: Record<string, unknown>;
}

/** Splits a comma-separated A2A-Extensions value (possibly repeated) into trimmed unique URIs. */
export function parseExtensionsHeader(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const raw = Array.isArray(value) ? value.join(',') : value;
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const uri = part.trim();
    if (uri) seen.add(uri);
  }
  return [...seen];
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Finds the AAP skill: the first part whose `data.type` is `<skill>.request`. */
export function findSkill(params: unknown): { skill?: string; data?: Record<string, unknown> } {
  const parts = (params as { message?: { parts?: unknown } } | undefined)?.message?.parts;
  if (!Array.isArray(parts)) return {};
  for (const part of parts) {
    const data = (part as { data?: unknown } | null)?.data;
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const type = (data as { type?: unknown }).type;
      if (typeof type === 'string' && type.endsWith('.request')) {
        return { skill: type.slice(0, -'.request'.length), data: data as Record<string, unknown> };
      }
    }
  }
  return {};
}

/**
 * The skill data of a JSON-RPC body that classifyRequest found a skill in, read again from the
 * same bytes (the journal keeps the bytes and takes the request's hash only when a line is read).
 */
export function skillDataOfBody(body: Buffer): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? findSkill((parsed as { params?: unknown }).params).data : undefined;
}

export interface ClassifyInput {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  clientIp: string;
  /** The buffered body; undefined when nothing was read. */
  body?: Buffer;
  /** True when the body was larger than the inspection limit (only a prefix, or nothing, was read). */
  oversized?: boolean;
}

export function classifyRequest(input: ClassifyInput): ClassifiedRequest {
  const q = input.url.indexOf('?');
  const out: ClassifiedRequest = {
    httpMethod: input.method,
    url: input.url,
    path: q === -1 ? input.url : input.url.slice(0, q),
    kind: 'none',
    id: null,
    a2aVersion: headerValue(input.headers, 'a2a-version')?.trim(),
    extensions: parseExtensionsHeader(input.headers['a2a-extensions']),
    clientIp: input.clientIp,
    headers: input.headers,
  };
  if (input.oversized) {
    out.kind = 'oversized';
    return out;
  }
  if (!input.body || input.body.length === 0) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.body.toString('utf8'));
  } catch {
    out.kind = 'not-json';
    return out;
  }
  if (Array.isArray(parsed)) {
    out.kind = 'batch';
    return out;
  }
  if (!parsed || typeof parsed !== 'object') {
    out.kind = 'not-jsonrpc';
    return out;
  }
  const obj = parsed as Record<string, unknown>;
  // A number keeps the buyer's own bytes when JavaScript would write it back differently.
  out.id = exactRpcId(obj.id, input.body);
  if (obj.jsonrpc !== '2.0' || typeof obj.method !== 'string') {
    out.kind = 'not-jsonrpc';
    return out;
  }
  out.kind = 'jsonrpc';
  out.rpcMethod = obj.method;
  out.body = obj;
  const { skill, data } = findSkill(obj.params);
  if (skill) {
    out.skill = skill;
    out.skillData = data;
  }
  return out;
}
