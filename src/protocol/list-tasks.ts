/**
 * A2A v1.0 ListTasks (§3.1.4): what a request may ask for and the shape of the answer. The
 * rules that bind a dealer: only the caller's tasks, newest status first, cursor pagination
 * with `nextPageToken` always present ("" on the last page), `pageSize` from 1 to 100 (50 when
 * absent), and `artifacts` left out of every task unless `includeArtifacts` is true.
 */

export const PAGE_SIZE = { min: 1, max: 100, default: 50 } as const;

/** The TaskState names of ProtoJSON; UNSPECIFIED as a filter means "any state". */
export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** A page token longer than this was not issued by any dealer that keeps its cursors short; it is refused unread. */
export const MAX_PAGE_TOKEN_CHARS = 512;

export interface ListTasksQuery {
  contextId?: string;
  /** Only tasks in this state (absent, or UNSPECIFIED, for any state). */
  status?: TaskState;
  pageSize: number;
  /** '' for the first page. */
  pageToken: string;
  /** Only tasks whose status timestamp is at or after this instant (ms since the epoch). */
  statusTimestampAfterMs?: number;
  includeArtifacts: boolean;
}

/** A request the dealer must refuse with -32602: `field` is the JSON Pointer of the bad member. */
export interface ListTasksProblem {
  field: string;
  problem: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : (JSON.stringify(v) ?? String(v)));

/** Reads ListTasksRequest params (every member optional), or names the first member that is not valid. */
export function readListTasksParams(params: unknown): { ok: true; query: ListTasksQuery } | { ok: false; problem: ListTasksProblem } {
  const fail = (member: string, problem: string) => ({ ok: false as const, problem: { field: `/params${member ? `/${member}` : ''}`, problem } });
  if (params === undefined || params === null) params = {};
  if (!isRecord(params)) return fail('', 'must be an object');
  const { contextId, status, pageSize, pageToken, statusTimestampAfter, includeArtifacts, historyLength, tenant } = params;
  const query: ListTasksQuery = { pageSize: PAGE_SIZE.default, pageToken: '', includeArtifacts: false };

  if (tenant !== undefined && typeof tenant !== 'string') return fail('tenant', `must be a string, got ${shown(tenant)}`);
  if (contextId !== undefined) {
    if (typeof contextId !== 'string') return fail('contextId', `must be a string, got ${shown(contextId)}`);
    if (contextId !== '') query.contextId = contextId;
  }
  if (status !== undefined) {
    if (!(TASK_STATES as readonly unknown[]).includes(status)) return fail('status', `must be a TaskState name (TASK_STATE_…), got ${shown(status)}`);
    if (status !== 'TASK_STATE_UNSPECIFIED') query.status = status as TaskState;
  }
  if (pageSize !== undefined) {
    if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < PAGE_SIZE.min || pageSize > PAGE_SIZE.max) {
      return fail('pageSize', `is out of range: must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}, got ${shown(pageSize)}`);
    }
    query.pageSize = pageSize;
  }
  if (pageToken !== undefined) {
    if (typeof pageToken !== 'string' || pageToken.length > MAX_PAGE_TOKEN_CHARS) return fail('pageToken', 'is not a nextPageToken this dealer issued');
    query.pageToken = pageToken;
  }
  if (historyLength !== undefined && (typeof historyLength !== 'number' || !Number.isInteger(historyLength) || historyLength < 0)) {
    return fail('historyLength', `must be a whole number ≥ 0, got ${shown(historyLength)}`);
  }
  if (statusTimestampAfter !== undefined) {
    const ms = typeof statusTimestampAfter === 'string' ? Date.parse(statusTimestampAfter) : NaN;
    if (!Number.isFinite(ms)) return fail('statusTimestampAfter', `must be an RFC 3339 timestamp, got ${shown(statusTimestampAfter)}`);
    query.statusTimestampAfterMs = ms;
  }
  if (includeArtifacts !== undefined) {
    if (typeof includeArtifacts !== 'boolean') return fail('includeArtifacts', `must be true or false, got ${shown(includeArtifacts)}`);
    query.includeArtifacts = includeArtifacts;
  }
  return { ok: true, query };
}

export interface ListTasksResult<T> {
  tasks: T[];
  /** Always present; '' on the last page. */
  nextPageToken: string;
  pageSize: number;
  /** Tasks matching the filters, before pagination. */
  totalSize: number;
}

/** A task as ListTasks shows it: without `artifacts` at all unless they were asked for. */
export function listedTask<T extends { artifacts?: unknown[] }>(task: T, includeArtifacts: boolean): T {
  if (includeArtifacts) return { ...task, artifacts: task.artifacts ?? [] };
  const { artifacts: _omitted, ...rest } = task;
  return rest as T;
}
