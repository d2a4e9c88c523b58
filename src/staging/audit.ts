/**
 * The audit log: one entry per state-changing admin action (and per change the proxy makes by
 * itself: a TTL running out, a guardrail halting the fleet), chained by hashes so a removed or
 * edited line shows. Each entry carries the SHA-256 of the one before it (`prev`) and its own
 * (`hash`, over the entry as written without `hash`); `audit-chain-check.ts` walks the files and
 * names each line that breaks the chain.
 *
 * Who acted is recorded as the remote address and a fingerprint of the bearer token (a short
 * SHA-256 prefix), never the token itself.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { boundReached } from '../common/bound-counts.js';
import { RotatingFile, type RotationSettings } from '../common/rotating-file.js';
import { headFileOf, lastAuditEntry, readAuditHead, writeAuditHead } from './audit-head.js';

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
  | 'guardrail-breach'
  /** The first entry of each file the log starts: after a rotation, it links the new file to the one before. */
  | 'file-start';

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

/** Where a fleet keeps its one shared chain (Redis, in fleet mode). */
export interface SharedAuditChain {
  append(facts: AuditFacts, ts: string, replica: string | null): Promise<AuditEntry>;
  /** The newest `limit` entries, oldest first. */
  recent(limit: number): Promise<AuditEntry[]>;
}

export interface AuditLogOptions {
  /** JSONL file appended to (--audit FILE). */
  file?: string;
  /** Size rotation of the file (--audit-max-bytes, --audit-keep, --audit-compress). */
  rotation?: RotationSettings;
  replica?: string;
  /** Entries kept in memory for GET /audit (default 10 000). */
  ring?: number;
  shared?: SharedAuditChain;
  /** Told when an entry cannot be written (the action itself has already happened). */
  onError?: (message: string) => void;
  /** Called each time the file rotates. */
  onRotate?: () => void;
}

export const DEFAULT_AUDIT_RING = 10_000;

/**
 * This process's chain (memory and --audit FILE), plus the fleet's shared chain when there is one.
 * Entries take their place in the chain in one queue, in the order they were recorded, and the
 * file's writes, rotations and reopenings run in that same queue: each file the log starts (at
 * start-up on an empty file, after a rotation, after SIGHUP onto a new file) begins with a
 * `file-start` entry linked to the last entry of the file before, and after each entry the head
 * file (FILE.head) names the chain's last entry, so `audit verify` can tell a cut tail or an
 * added entry from the end of the log (src/staging/audit-head.ts).
 */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private prev = GENESIS;
  private seq = 0;
  private writing: Promise<unknown> = Promise.resolve();
  private readonly out: RotatingFile | undefined;

  constructor(private readonly opts: AuditLogOptions = {}) {
    if (opts.file) this.out = new RotatingFile(opts.file, '--audit', opts.rotation ?? {}, (m) => opts.onError?.(m));
  }

  get file(): string | undefined {
    return this.opts.file;
  }

  /** Times the file rotated by size since the start. */
  get rotations(): number {
    return this.out?.rotations ?? 0;
  }

  /** Opens the file (created 0600, never through a link) and continues its chain: from its head, else from its last line. */
  async open(): Promise<void> {
    const out = this.out;
    if (!out) return;
    await out.open();
    const [head, last] = await Promise.all([readAuditHead(headFileOf(out.file)), lastAuditEntry(out.file, out.size)]);
    const from = head ?? last;
    if (from) [this.prev, this.seq] = [from.hash, from.seq];
    if (head && last && (last.seq !== head.seq || last.hash !== head.hash))
      this.opts.onError?.(
        `--audit: ${out.file} ends at seq ${last.seq}, but its head names seq ${head.seq}; the chain goes on from the head (aap-chaos audit verify names the difference)`,
      );
    if (out.size === 0) await this.startFile();
  }

  /** Appends one entry to every sink; resolves once the file has it. Never throws. */
  record(facts: AuditFacts): Promise<AuditEntry> {
    const ts = new Date().toISOString();
    const appended = this.writing.then(() => this.append(facts, ts));
    this.writing = appended.catch(() => {});
    return appended;
  }

  /** After an outside rotation (logrotate, then SIGHUP): the path is opened again, and a new file starts with a `file-start` entry. */
  reopen(): Promise<void> {
    const out = this.out;
    if (!out) return Promise.resolve();
    const reopened = this.writing.then(async () => {
      await out.reopen();
      if (out.size === 0) await this.startFile();
    });
    this.writing = reopened.catch((e: Error) => this.opts.onError?.(e.message));
    return this.writing.then(() => {});
  }

  /** The entries GET /audit answers with: the fleet's chain in fleet mode, else this process's. */
  async recent(limit = DEFAULT_AUDIT_RING): Promise<AuditEntry[]> {
    if (this.opts.shared) return this.opts.shared.recent(limit);
    return this.entries.slice(-limit);
  }

  async flush(): Promise<void> {
    await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.out?.close();
  }

  private async append(facts: AuditFacts, ts: string): Promise<AuditEntry> {
    const out = this.out;
    if (out?.wouldPass(Buffer.byteLength(entryLine(this.next(facts, ts)))))
      await out.rotate().then(
        () => {
          this.opts.onRotate?.();
          return this.startFile();
        },
        (e: Error) => this.opts.onError?.(`audit file ${out.file} not rotated: ${e.message}`),
      );
    const entry = this.next(facts, ts);
    await this.commit(entry);
    await this.opts.shared
      ?.append(facts, ts, entry.replica)
      .catch((e: Error) => this.opts.onError?.(`audit entry not added to the fleet's stream: ${e.message}`));
    return entry;
  }

  /** The entry `facts` would be if it were appended now. */
  private next(facts: AuditFacts, ts: string): AuditEntry {
    return chainEntry(facts, { ts, replica: this.opts.replica ?? null, seq: this.seq + 1, prev: this.prev });
  }

  /** Puts an entry in the chain: memory, then the file and its head. */
  private async commit(entry: AuditEntry): Promise<void> {
    [this.prev, this.seq] = [entry.hash, entry.seq];
    this.entries.push(entry);
    if (this.entries.length > (this.opts.ring ?? DEFAULT_AUDIT_RING)) {
      this.entries.shift();
      boundReached('audit_ring');
    }
    const out = this.out;
    if (!out) return;
    try {
      await out.write(entryLine(entry));
    } catch (e) {
      this.opts.onError?.(`audit entry ${entry.seq} not written to ${out.file}: ${(e as Error).message}`);
      return;
    }
    await writeAuditHead(headFileOf(out.file), entry).catch((e: Error) =>
      this.opts.onError?.(`audit head ${headFileOf(out.file)} not updated to entry ${entry.seq}: ${e.message}`),
    );
  }

  /** The first entry of a new file: where the chain stood when the file began. */
  private startFile(): Promise<void> {
    const facts: AuditFacts = {
      action: 'file-start',
      target: `file:${basename(this.out!.file)}`,
      scenario_before: null,
      scenario_after: null,
      remote: null,
      token: null,
      detail: this.seq === 0 ? 'chain start' : `after seq ${this.seq}`,
    };
    return this.commit(this.next(facts, new Date().toISOString()));
  }
}

/** An entry as one line of the file. */
export const entryLine = (entry: AuditEntry): string => JSON.stringify(entry) + '\n';
