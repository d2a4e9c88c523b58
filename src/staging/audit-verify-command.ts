/**
 * `aap-chaos audit verify PATH… [--head FILE | --no-head]`: checks audit chains. A PATH is an
 * audit file (FILE, or a rotated FILE.N / FILE.N.gz) or a directory of them. Files are grouped into
 * chains by name (FILE with its FILE.N), each chain read oldest first, checked across its file
 * boundaries and held to its head (FILE.head beside FILE). Exit 0 when every chain is intact and
 * its tail confirmed, 1 naming each break, a missing file or a cut tail, 2 when a file cannot be
 * read.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { readRegularFile } from '../common/regular-file.js';
import { headFileOf, parseAuditHead, type AuditHead } from './audit-head.js';
import { verifyChain, type ChainFile, type HeadCheck } from './audit-chain-check.js';

/** Audit files larger than this (unpacked) are refused rather than read into memory. */
const MAX_AUDIT_BYTES = 512 * 1024 * 1024;
/** A head is one short JSON line. */
const MAX_HEAD_BYTES = 4096;
const unzip = promisify(gunzip);

/** A file the operator named that cannot be used: exit 2. */
class Unreadable extends Error {}

export interface AuditVerifyOptions {
  /** A head kept elsewhere (copied off the machine), for a single chain. */
  head?: string;
  /** Check the links alone: no head confirms the tail (a GET /audit dump has none). */
  noHead?: boolean;
}

/** FILE.N or FILE.N.gz → { base: FILE, n: N }; FILE → n 0. */
function rotationOf(file: string): { base: string; n: number; gz: boolean } {
  const m = /^(.*)\.(\d+)(\.gz)?$/.exec(file);
  return m ? { base: m[1]!, n: Number(m[2]), gz: m[3] !== undefined } : { base: file, n: 0, gz: false };
}

export async function runAuditVerify(paths: readonly string[], opts: AuditVerifyOptions = {}): Promise<{ output: string; exitCode: number }> {
  try {
    const chains = groupChains(await expand(paths));
    if (chains.size === 0) return { output: `aap-chaos: audit verify: no audit file in ${paths.join(', ')}`, exitCode: 2 };
    if (opts.head !== undefined && chains.size > 1)
      return { output: `aap-chaos: audit verify: --head names the head of one chain, but ${chains.size} chains were given`, exitCode: 2 };
    const reports: string[] = [];
    let ok = true;
    for (const [base, files] of chains) {
      const report = await verifyOne(base, files, opts);
      ok &&= report.ok;
      reports.push(report.text);
    }
    return { output: reports.join('\n'), exitCode: ok ? 0 : 1 };
  } catch (e) {
    if (e instanceof Unreadable) return { output: `aap-chaos: audit verify: ${e.message}`, exitCode: 2 };
    throw e;
  }
}

/** The files named, a directory standing for the audit chains in it (a chain is known by its head, or by its file's first line). */
async function expand(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
      throw new Unreadable(`cannot read ${path} (${e.code ?? e.message})`);
    });
    if (info.isDirectory()) files.push(...(await chainsIn(path)));
    else if (info.isFile()) files.push(path);
    else throw new Unreadable(`${path} is not a regular file or a directory`);
  }
  return files;
}

async function chainsIn(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const bases = new Set<string>();
  for (const name of names) {
    if (name.endsWith('.head')) bases.add(name.slice(0, -'.head'.length));
    else if (rotationOf(name).n === 0 && (await startsWithEntry(join(dir, name)))) bases.add(name);
  }
  return names.filter((name) => !name.endsWith('.head') && !name.endsWith('.tmp') && bases.has(rotationOf(name).base)).map((name) => join(dir, name));
}

async function startsWithEntry(file: string): Promise<boolean> {
  const info = await stat(file);
  if (!info.isFile() || info.size === 0) return false;
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    return /^\{"seq":\d+,"ts":/.test(buffer.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await handle.close();
  }
}

/** Files by the chain they belong to (FILE for FILE, FILE.1, FILE.2.gz …), oldest first. */
function groupChains(files: readonly string[]): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  for (const file of [...new Set(files)]) {
    const { base } = rotationOf(file);
    chains.set(base, [...(chains.get(base) ?? []), file]);
  }
  for (const list of chains.values()) list.sort((a, b) => rotationOf(b).n - rotationOf(a).n);
  return chains;
}

async function verifyOne(base: string, files: string[], opts: AuditVerifyOptions): Promise<{ ok: boolean; text: string }> {
  const problems = missingFiles(base, files);
  const texts: ChainFile[] = [];
  for (const file of files) texts.push({ name: file, text: await readAuditFile(file) });
  const verdict = verifyChain(texts, await headCheck(base, opts));
  problems.push(...verdict.problems);
  const span = verdict.entries > 0 ? `, seq ${verdict.firstSeq}-${verdict.lastSeq}` : '';
  const what = `${base} (${files.length} ${files.length === 1 ? 'file' : 'files'}, ${verdict.entries} entries${span})`;
  const notes = verdict.notes.map((n) => `  ${n}`);
  if (problems.length === 0) return { ok: true, text: [`${what}: chain intact`, ...notes].join('\n') };
  const head = `${what}: chain broken (${problems.length} ${problems.length === 1 ? 'place' : 'places'}):`;
  return { ok: false, text: [head, ...problems.map((p) => `  ${p}`), ...notes].join('\n') };
}

/** Rotated files are numbered 1, 2, …: a number skipped, or the newest file (FILE itself) not given, is named. */
function missingFiles(base: string, files: readonly string[]): string[] {
  const numbers = new Set(files.map((f) => rotationOf(f).n));
  const problems: string[] = [];
  if (!numbers.has(0)) problems.push(`${base} is missing: the newest file of the chain, where it ends, is not given`);
  for (let n = Math.max(...numbers) - 1; n >= 1; n--) if (!numbers.has(n)) problems.push(`${base}.${n} is missing: given are files before and after it`);
  return problems;
}

async function readAuditFile(file: string): Promise<string> {
  // A regular file only, bounded: a FIFO given as a log would otherwise hang the command.
  const read = readRegularFile(file, { maxBytes: MAX_AUDIT_BYTES, what: 'an audit log' });
  if (!read.ok) throw new Unreadable(`cannot read ${file}: ${read.message}`);
  if (!rotationOf(file).gz) return read.bytes.toString('utf8');
  const unpacked = await unzip(read.bytes, { maxOutputLength: MAX_AUDIT_BYTES }).catch((e: NodeJS.ErrnoException) => {
    throw new Unreadable(`${file} cannot be unpacked (${e.code ?? e.message})`);
  });
  return unpacked.toString('utf8');
}

async function headCheck(base: string, opts: AuditVerifyOptions): Promise<HeadCheck> {
  const name = opts.head ?? headFileOf(base);
  if (opts.noHead) return { head: undefined, name, required: false };
  const read = readRegularFile(name, { maxBytes: MAX_HEAD_BYTES, what: 'an audit head' });
  if (!read.ok && read.message === 'no such file' && opts.head === undefined) return { head: undefined, name, required: true };
  if (!read.ok) throw new Unreadable(`cannot read the head ${name}: ${read.message}`);
  const text = read.bytes.toString('utf8');
  const head: AuditHead | undefined = parseAuditHead(text);
  if (!head) throw new Unreadable(`${name} is not an audit head ({"seq":N,"hash":"…"})`);
  return { head, name };
}
