/**
 * Reading a file an operator names (a scenario, a recording, a journal, a certificate, a CA
 * bundle, an inventory, a baseline): a regular file only, read through a bounded loop. The file
 * is opened without blocking and checked through the open handle, so a FIFO (whose open and read
 * wait for a writer: one at a key path once froze the whole process), a device or a directory is
 * refused before a byte is read, and a file that grows after the check still cannot cost more
 * than the limit: it is held while reading, not taken from stat. Synchronous: the open never
 * waits, and a regular file within its limit is read in milliseconds, so one reader serves the
 * commands, the start-up checks and a certificate reload alike.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export type RegularFile = { ok: true; bytes: Buffer } | { ok: false; problem: string };

export interface RegularFileOptions {
  maxBytes: number;
  /** What the file is, for the refusal of a special file: `a scenario` → "a scenario is read from a regular file only". */
  what: string;
  /** The refusal of a file over `maxBytes`; `atLeast`: the size is what was read before stopping. */
  tooLarge?: (bytes: number, atLeast: boolean) => string;
}

/** O_NONBLOCK: opening a FIFO for reading otherwise waits until something opens it for writing. */
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const READ_CHUNK = 64 * 1024;

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'a special file';
}

function tooLarge(opts: RegularFileOptions, bytes: number, atLeast: boolean): string {
  return opts.tooLarge?.(bytes, atLeast) ?? `is ${atLeast ? 'at least ' : ''}${bytes} bytes, more than the ${opts.maxBytes} bytes ${opts.what} may have`;
}

/** Why the opened file is not read, or undefined. */
function refusal(info: Stats, opts: RegularFileOptions): string | undefined {
  if (!info.isFile()) return `is ${kindOf(info)}, not a regular file; ${opts.what} is read from a regular file only`;
  if (info.size > opts.maxBytes) return tooLarge(opts, info.size, false);
  return undefined;
}

function failure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  return `cannot read the file (${code ?? String(error)})`;
}

export function readRegularFile(file: string, opts: RegularFileOptions): RegularFile {
  let fd: number;
  try {
    fd = openSync(file, FLAGS);
  } catch (e) {
    return { ok: false, problem: failure(e) };
  }
  try {
    const refused = refusal(fstatSync(fd), opts);
    if (refused) return { ok: false, problem: refused };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const bytesRead = readSync(fd, buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      if ((total += bytesRead) > opts.maxBytes) return { ok: false, problem: tooLarge(opts, total, true) };
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (e) {
    return { ok: false, problem: failure(e) };
  } finally {
    closeSync(fd);
  }
}
