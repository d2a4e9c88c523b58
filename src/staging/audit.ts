/**
 * The audit log: one entry per state-changing admin action (and per change the proxy makes by
 * itself: a TTL running out, a guardrail halting the fleet), chained by hashes so a removed or
 * edited line shows. Each entry carries the SHA-256 of the one before it (`prev`) and its own
 * (`hash`, over the entry as written without `hash`); `verifyAuditText` walks a file and names
 * the first line that breaks the chain.
 *
 * Who acted is recorded as the remote address and a fingerprint of the bearer token (a short
 * SHA-256 prefix), never the token itself.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';

export type AuditAction =
  | 'scenario-load'
  | 'scenario-revert'
  | 'rule-switch'
  | 'rule-revert'
  | 'reset'
  | 'session-reset'
  | 'dry-run'
  | 'lever-pull'
  | 'lever-release'
  | 'guardrail-breach';

/** What one action changed, and who asked for it. */
export interface AuditFacts {
  action: AuditAction;
  /** What it acted on: `scenario`, `rule:ID`, `session:ID`, `fleet` … */
  target: string;
  /** SHA-256 of the scenario in force before and after (its JSON), or null for pass-through. */
  scenario_before: string | null;
  scenario_after: string | null;
  /** The admin client's address; null for a change the proxy made itself. */
  remote: string | null;
  /** `sha256:` + 12 hex of the bearer token sent, or null when none was. */
  token: string | null;
  /** A short human note: the TTL, the reason a lever was pulled, the guardrail's reading. */
  detail?: string;
}

export interface AuditEntry extends AuditFacts {
  /** Position in its chain, from 1. */
  seq: number;
  ts: string;
  replica: string | null;
  /** Hash of the entry before this one in the chain; 64 zeros for the first. */
  prev: string;
  hash: string;
}

export const GENESIS = '0'.repeat(64);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The SHA-256 of a scenario definition as JSON, or null when there is none (pass-through). */
export function scenarioSha(definition: unknown): string | null {
  return definition === undefined || definition === null ? null : sha256(JSON.stringify(definition));
}

/** Which token an admin call carried, as a fingerprint that cannot be turned back into the token. */
export function tokenFingerprint(authorization: string | undefined): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  return match ? `sha256:${sha256(match[1]!).slice(0, 12)}` : null;
}

/** Builds the next entry of a chain: fixed key order, so the hash is over exactly the line written. */
export function chainEntry(facts: AuditFacts, at: { ts: string; replica: string | null; seq: number; prev: string }): AuditEntry {
  const body = {
    seq: at.seq,
    ts: at.ts,
    replica: at.replica,
    action: facts.action,
    target: facts.target,
    scenario_before: facts.scenario_before,
    scenario_after: facts.scenario_after,
    remote: facts.remote,
    token: facts.token,
    ...(facts.detail !== undefined ? { detail: facts.detail } : {}),
    prev: at.prev,
  };
  return { ...body, hash: sha256(JSON.stringify(body)) };
}

/** The hash an entry read back should carry: over its fields as written, without `hash`. */
function expectedHash(entry: Record<string, unknown>): string {
  const { hash: _hash, ...rest } = entry;
  return sha256(JSON.stringify(rest));
}

export interface AuditVerdict {
  ok: boolean;
  entries: number;
  /** One sentence per break, naming the line. */
  problems: string[];
}

/** Checks a JSONL audit log: every line's own hash, and every link to the line before. */
export function verifyAuditText(text: string, name = 'audit log'): AuditVerdict {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const problems: string[] = [];
  let prev = GENESIS;
  let seq = 0;
  lines.forEach((line, i) => {
    const where = `${name}:${i + 1}`;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
      if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new Error('not an object');
    } catch {
      problems.push(`${where}: not an audit entry (not a JSON object)`);
      prev = '';
      return;
    }
    if (entry.hash !== expectedHash(entry)) problems.push(`${where}: edited: its content does not match its hash (seq ${String(entry.seq)})`);
    else if (entry.prev !== prev) {
      const gap = typeof entry.seq === 'number' ? entry.seq - seq - 1 : 0;
      const missing = gap === 1 ? `; entry ${seq + 1} is missing` : gap > 1 ? `; entries ${seq + 1}-${seq + gap} are missing` : '';
      const why = i === 0 ? 'the first lines were removed' : gap > 0 ? 'a line was removed' : 'a line was removed, reordered or edited';
      problems.push(
        `${where}: the chain is broken before this line (prev does not match the hash of ${i === 0 ? 'the chain start' : `line ${i}`}): ${why}${missing}`,
      );
    }
    prev = typeof entry.hash === 'string' ? entry.hash : '';
    seq = typeof entry.seq === 'number' ? entry.seq : seq + 1;
  });
  return { ok: problems.length === 0, entries: lines.length, problems };
}

/** Where a fleet keeps its one shared chain (Redis, in fleet mode). */
export interface SharedAuditChain {
  append(facts: AuditFacts, ts: string, replica: string | null): Promise<AuditEntry>;
  /** The newest `limit` entries, oldest first. */
  recent(limit: number): Promise<AuditEntry[]>;
}

export interface AuditLogOptions {
  /** JSONL file appended to (--audit FILE). */
  file?: string;
  replica?: string;
  /** Entries kept in memory for GET /audit (default 10 000). */
  ring?: number;
  shared?: SharedAuditChain;
  /** Told when an entry cannot be written (the action itself has already happened). */
  onError?: (message: string) => void;
}

/** This process's chain (memory and --audit FILE), plus the fleet's shared chain when there is one. */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private prev = GENESIS;
  private seq = 0;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: AuditLogOptions = {}) {}

  get file(): string | undefined {
    return this.opts.file;
  }

  /** Continues the chain of an existing file: the next line links to its last. */
  async open(): Promise<void> {
    if (!this.opts.file) return;
    const text = await readFile(this.opts.file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '';
      throw new Error(`--audit: cannot read ${this.opts.file} (${e.code ?? e.message})`);
    });
    const last = text.trimEnd().split('\n').at(-1);
    if (!last) return;
    try {
      const entry = JSON.parse(last) as AuditEntry;
      this.prev = entry.hash;
      this.seq = entry.seq;
    } catch {
      throw new Error(`--audit: ${this.opts.file} does not end with an audit entry; give a new file`);
    }
  }

  /** Appends one entry to every sink; resolves once the file has it. Never throws. */
  record(facts: AuditFacts): Promise<AuditEntry> {
    const ts = new Date().toISOString();
    const replica = this.opts.replica ?? null;
    const entry = chainEntry(facts, { ts, replica, seq: ++this.seq, prev: this.prev });
    this.prev = entry.hash;
    this.entries.push(entry);
    if (this.entries.length > (this.opts.ring ?? 10_000)) this.entries.shift();
    const file = this.opts.file;
    // One write at a time, in chain order.
    this.writing = this.writing.then(async () => {
      if (file)
        await appendFile(file, JSON.stringify(entry) + '\n').catch((e: Error) => this.opts.onError?.(`audit entry not written to ${file}: ${e.message}`));
      await this.opts.shared?.append(facts, ts, replica).catch((e: Error) => this.opts.onError?.(`audit entry not added to the fleet's stream: ${e.message}`));
    });
    return this.writing.then(() => entry);
  }

  /** The entries GET /audit answers with: the fleet's chain in fleet mode, else this process's. */
  async recent(limit = 10_000): Promise<AuditEntry[]> {
    if (this.opts.shared) return this.opts.shared.recent(limit);
    return this.entries.slice(-limit);
  }

  flush(): Promise<void> {
    return this.writing;
  }
}
