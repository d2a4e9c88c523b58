/**
 * The tasks the mock dealer holds (from SendStreamingMessage), per caller, bounded: the least
 * recently used go first. Reading and listing only ever show a caller its own tasks, and a task
 * of another caller is "not found", never "forbidden" (A2A §3.3.2: do not reveal it exists).
 */
import { listedTask, type ListTasksQuery, type ListTasksResult } from '../protocol/list-tasks.js';
import { BoundedMap } from './bounded-map.js';

const MAX_TASKS = 1_000;

export interface Task {
  id: string;
  contextId: string;
  status: { state: string; timestamp: string };
  artifacts?: Record<string, unknown>[];
}

interface Kept {
  task: Task;
  owner: string;
  /** The status timestamp in ms: the listing order, newest first. */
  at: number;
  /** Save order, which breaks ties between tasks updated in the same millisecond. */
  seq: number;
}

/** Where a page ends: the sort key of its last task, as an opaque token. */
function encodeCursor(kept: Kept): string {
  return Buffer.from(`${kept.at}.${kept.seq}`).toString('base64url');
}

function decodeCursor(token: string): { at: number; seq: number } | undefined {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  return m ? { at: Number(m[1]), seq: Number(m[2]) } : undefined;
}

/** Newest status first; the later save first within one millisecond. */
const newestFirst = (a: Kept, b: Kept): number => b.at - a.at || b.seq - a.seq;

export class TaskStore {
  private readonly tasks = new BoundedMap<string, Kept>(MAX_TASKS);
  private seq = 0;

  get(id: unknown, owner: string): Task | undefined {
    const kept = typeof id === 'string' ? this.tasks.get(id) : undefined;
    return kept?.owner === owner ? kept.task : undefined;
  }

  save(task: Task, owner: string): void {
    this.tasks.set(task.id, { task, owner, at: Date.parse(task.status.timestamp), seq: ++this.seq });
  }

  /** One page of the owner's tasks, or undefined when the page token is not one this store issued. */
  list(owner: string, query: ListTasksQuery): ListTasksResult<Task> | undefined {
    const cursor = query.pageToken === '' ? undefined : decodeCursor(query.pageToken);
    if (query.pageToken !== '' && !cursor) return undefined;
    const matching: Kept[] = [];
    for (const kept of this.tasks.values()) {
      if (kept.owner !== owner) continue;
      if (query.contextId !== undefined && kept.task.contextId !== query.contextId) continue;
      if (query.status !== undefined && kept.task.status.state !== query.status) continue;
      if (query.statusTimestampAfterMs !== undefined && kept.at < query.statusTimestampAfterMs) continue;
      matching.push(kept);
    }
    matching.sort(newestFirst);
    const start = cursor ? matching.findIndex((k) => newestFirst(k, { ...k, ...cursor }) > 0) : 0;
    const rest = start === -1 ? [] : matching.slice(start);
    const page = rest.slice(0, query.pageSize);
    return {
      tasks: page.map((k) => listedTask(k.task, query.includeArtifacts)),
      nextPageToken: rest.length > page.length ? encodeCursor(page[page.length - 1]!) : '',
      pageSize: query.pageSize,
      totalSize: matching.length,
    };
  }
}
