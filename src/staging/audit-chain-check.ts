/**
 * Checking one audit chain over the files that hold it, oldest first (FILE.3, FILE.2, FILE.1,
 * FILE): every line is an entry exactly as the proxy writes it (its hash over its content, its
 * fields in their order), links to the entry before it, across file boundaries too; the chain
 * begins where a chain may (seq 1 from the genesis hash, or a `file-start` entry whose older files
 * were rotated away); and it ends where its head says (src/staging/audit-head.ts).
 */
import { createHash } from 'node:crypto';
import { chainEntry, GENESIS, type AuditFacts } from './audit.js';
import type { AuditHead } from './audit-head.js';

export interface ChainFile {
  /** How the file is named in problems. */
  name: string;
  text: string;
}

export interface ChainVerdict {
  ok: boolean;
  entries: number;
  /** The first and last seq seen. */
  firstSeq?: number;
  lastSeq?: number;
  /** One sentence per break, naming the file and line. */
  problems: string[];
  /** What was checked besides the links: where the chain starts, how its tail was confirmed. */
  notes: string[];
}

/** The head to hold the tail to: one read from a file (named), or none (`required` says whether that is a problem). */
export type HeadCheck = { head: AuditHead; name: string } | { head: undefined; name: string; required: boolean };

/** Every field an entry has (`detail` may be absent). */
const FIELDS = ['seq', 'ts', 'replica', 'action', 'target', 'scenario_before', 'scenario_after', 'remote', 'token', 'prev', 'hash'];

/** The entry a line should be: rebuilt from its fields, so a field added, dropped or reordered shows. */
function rebuilt(entry: Record<string, unknown>): string | undefined {
  if (!FIELDS.every((field) => field in entry)) return undefined;
  const { seq, ts, replica, prev, hash: _hash, ...facts } = entry;
  return JSON.stringify(
    chainEntry(facts as unknown as AuditFacts, { seq: seq as number, ts: ts as string, replica: replica as string | null, prev: prev as string }),
  );
}

interface Walk {
  prev: string | undefined;
  seq: number;
  /** Hash by seq, to place a head that names an entry before the last. */
  hashes: Map<number, string>;
  verdict: ChainVerdict;
  /** The name of the file whose last line was read last. */
  lastFile: string | undefined;
}

export function verifyChain(files: readonly ChainFile[], head: HeadCheck): ChainVerdict {
  const walk: Walk = { prev: undefined, seq: 0, hashes: new Map(), verdict: { ok: false, entries: 0, problems: [], notes: [] }, lastFile: undefined };
  for (const file of files) walkFile(walk, file);
  checkTail(walk, head);
  walk.verdict.ok = walk.verdict.problems.length === 0;
  return walk.verdict;
}

function walkFile(walk: Walk, file: ChainFile): void {
  const { problems } = walk.verdict;
  if (file.text === '') {
    problems.push(`${file.name}: empty: the proxy begins every audit file with an entry, so an empty one was cut to nothing (or is not an audit log)`);
    return;
  }
  const lines = file.text.split('\n');
  const whole = lines.pop() === '';
  if (!whole) problems.push(`${file.name}:${lines.length + 1}: cut off: the last line has no end (the file was truncated in the middle of an entry)`);
  lines.forEach((line, i) => walkLine(walk, line, `${file.name}:${i + 1}`, i === 0 ? file.name : undefined));
  walk.lastFile = file.name;
}

function walkLine(walk: Walk, line: string, where: string, startsFile: string | undefined): void {
  const { verdict } = walk;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new Error('not an object');
  } catch {
    verdict.problems.push(`${where}: not an audit entry (not a JSON object)`);
    walk.prev = '';
    return;
  }
  const seq = typeof entry.seq === 'number' ? entry.seq : walk.seq + 1;
  const { hash, ...rest } = entry;
  if (hash !== createHash('sha256').update(JSON.stringify(rest)).digest('hex'))
    verdict.problems.push(`${where}: edited: its content does not match its hash (seq ${String(entry.seq)})`);
  else if (rebuilt(entry) !== line)
    verdict.problems.push(`${where}: not an entry as the proxy writes one (a field added, missing or out of order; seq ${String(entry.seq)}): forged`);
  else checkLink(walk, entry, where, startsFile);
  verdict.entries++;
  verdict.firstSeq ??= seq;
  verdict.lastSeq = seq;
  walk.prev = typeof entry.hash === 'string' ? entry.hash : '';
  walk.seq = seq;
  walk.hashes.set(seq, walk.prev);
}

function checkLink(walk: Walk, entry: Record<string, unknown>, where: string, startsFile: string | undefined): void {
  const { verdict } = walk;
  if (walk.prev === undefined) {
    // The first entry seen: the chain's beginning, or a file the proxy began after older ones were rotated away.
    if (entry.prev === GENESIS && entry.seq === 1) return;
    if (entry.action === 'file-start') {
      verdict.notes.push(`starts at seq ${String(entry.seq)} (${where}): the entries before it were in files rotated away`);
      return;
    }
    verdict.problems.push(
      `${where}: the chain does not start here (seq ${String(entry.seq)} is neither the first entry nor a file's first): the first lines were removed, or an older file is missing`,
    );
    return;
  }
  if (entry.prev === walk.prev) return;
  const gap = typeof entry.seq === 'number' ? entry.seq - walk.seq - 1 : 0;
  const missing = gap === 1 ? `; entry ${walk.seq + 1} is missing` : gap > 1 ? `; entries ${walk.seq + 1}-${walk.seq + gap} are missing` : '';
  const why = startsFile
    ? `a file between ${walk.lastFile} and ${startsFile} is missing, or lines were removed at the boundary`
    : gap > 0
      ? 'a line was removed'
      : 'a line was removed, reordered or edited';
  verdict.problems.push(`${where}: the chain is broken before this line (prev does not match the hash of the entry before): ${why}${missing}`);
}

function checkTail(walk: Walk, check: HeadCheck): void {
  const { verdict } = walk;
  if (verdict.entries === 0) return;
  if (check.head === undefined) {
    if (check.required)
      verdict.problems.push(
        `no head (${check.name}): a cut tail or an entry added at the end cannot be told from the end of the log; give --head FILE, or --no-head to check the links alone`,
      );
    else verdict.notes.push('tail not confirmed (--no-head): a cut tail or an entry added at the end would not show');
    return;
  }
  const { head, name } = check;
  const last = walk.seq;
  if (head.seq === last && head.hash === walk.prev) verdict.notes.push(`tail confirmed by ${name} (seq ${head.seq})`);
  else if (head.seq > last)
    verdict.problems.push(
      `the tail was cut: ${name} says the chain ends at seq ${head.seq}, the files end at seq ${last} (${head.seq - last === 1 ? `entry ${head.seq} is` : `entries ${last + 1}-${head.seq} are`} missing)`,
    );
  else if (walk.hashes.get(head.seq) === head.hash)
    verdict.problems.push(
      `entries after the head: ${name} says the chain ends at seq ${head.seq}, but entries ${head.seq + 1}-${last} follow it (added without the proxy, or written as it crashed)`,
    );
  else verdict.problems.push(`${name} names seq ${head.seq} with a hash no entry of the files has: the head or the files were changed`);
}
