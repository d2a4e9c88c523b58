/**
 * The head of an audit file: FILE.head names the chain's last entry (its seq and hash), rewritten
 * after each entry. A hash chain shows a removed or edited line, but not a cut tail or an entry
 * added at the end, both of which leave a chain that links; the head does. `audit verify` compares
 * the last entry of the files with the head: a chain that ends before the head lost its tail, one
 * that goes past it gained entries the proxy never wrote. The head is as trustworthy as the place
 * it is kept: someone who may write both files can rewrite both, so ship them off the machine.
 */
import { constants } from 'node:fs';
import { open, readFile, rename } from 'node:fs/promises';
import { LOG_FILE_MODE } from '../common/log-file.js';

export interface AuditHead {
  seq: number;
  hash: string;
  ts?: string;
}

/** Where the head of an audit file is kept: beside it, named after it. */
export const headFileOf = (file: string): string => `${file}.head`;

const HASH = /^[0-9a-f]{64}$/;

/** The head as a line holds it, or undefined when the text is not one. */
export function parseAuditHead(text: string): AuditHead | undefined {
  try {
    const head = JSON.parse(text) as AuditHead;
    return Number.isSafeInteger(head.seq) && head.seq >= 0 && typeof head.hash === 'string' && HASH.test(head.hash) ? head : undefined;
  } catch {
    return undefined;
  }
}

/** The head beside an audit file, or undefined when there is none; a head that cannot be read is a start-up error. */
export async function readAuditHead(headFile: string): Promise<AuditHead | undefined> {
  const text = await readFile(headFile, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new Error(`--audit: cannot read ${headFile} (${e.code ?? e.message})`);
  });
  if (text === undefined) return undefined;
  const head = parseAuditHead(text);
  if (!head) throw new Error(`--audit: ${headFile} is not an audit head ({"seq":N,"hash":"…"}); move it aside to start from the file's last line`);
  return head;
}

/** Replaces the head at once (a new file renamed over the old): a reader sees the old head or the new one, never half. */
export async function writeAuditHead(headFile: string, entry: { seq: number; hash: string; ts: string }): Promise<void> {
  const temporary = `${headFile}.tmp`;
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, LOG_FILE_MODE);
  try {
    await handle.writeFile(JSON.stringify({ seq: entry.seq, hash: entry.hash, ts: entry.ts }) + '\n');
  } finally {
    await handle.close();
  }
  await rename(temporary, headFile);
}

/** Audit entries are a few hundred bytes: the last one is within this many bytes of the end. */
const TAIL_BYTES = 64 * 1024;

/** The last entry of an audit file of `size` bytes (undefined when empty); a file that ends otherwise is a start-up error. */
export async function lastAuditEntry(file: string, size: number): Promise<AuditHead | undefined> {
  if (size === 0) return undefined;
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  let tail: string;
  try {
    const length = Math.min(size, TAIL_BYTES);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    tail = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  const last = tail.endsWith('\n') ? tail.slice(0, -1).split('\n').at(-1)! : undefined;
  const head = last === undefined ? undefined : parseAuditHead(last);
  if (!head)
    throw new Error(`--audit: ${file} does not end with a whole audit entry; move it aside (aap-chaos audit verify says what is wrong) or give a new file`);
  return head;
}
