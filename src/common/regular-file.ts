/**
 * Reading a file an operator names (a scenario, a key, a certificate, a CA bundle, a recording, a
 * journal, an inventory, a baseline): a regular file only, read through a bounded loop. The file
 * is opened without blocking and checked through the open handle, so a FIFO (whose open and read
 * wait for a writer: one at a key path once froze the whole process), a device or a directory is
 * refused before a byte is read, and a file that grows after the check still cannot cost more
 * than the limit: it is held while reading, not taken from stat. Synchronous: the open never
 * waits, and a regular file within its limit is read in milliseconds, so one reader serves the
 * commands, the start-up checks and a certificate reload alike (`await` on it is harmless).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export type RegularFileRead = { ok: true; bytes: Buffer } | { ok: false; message: string };

export interface RegularFileLimits {
  maxBytes: number;
  /** What the file is, for the refusal of a special file: `a scenario` → "a scenario is read from a regular file only". */
  what: string;
  /** The refusal of a file past the limit; `atLeast`: the size is what was read before stopping. */
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

function tooLarge(limits: RegularFileLimits, bytes: number, atLeast: boolean): string {
  return limits.tooLarge?.(bytes, atLeast) ?? `is ${atLeast ? 'at least ' : ''}${bytes} bytes, more than the ${limits.maxBytes} bytes ${limits.what} may have`;
}

/** Why the opened file is not read, or undefined. */
function refusal(info: Stats, limits: RegularFileLimits): string | undefined {
  if (!info.isFile()) return `is ${kindOf(info)}, not a regular file; ${limits.what} is read from a regular file only`;
  if (info.size > limits.maxBytes) return tooLarge(limits, info.size, false);
  return undefined;
}

function readFailure(error: unknown, what: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return `is a directory, not a regular file; ${what} is read from a regular file only`;
  if (code === 'EACCES') return 'permission denied';
  return `cannot read the file (${code ?? String(error)})`;
}

export function readRegularFile(file: string, limits: RegularFileLimits): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(file, FLAGS);
  } catch (e) {
    return { ok: false, message: readFailure(e, limits.what) };
  }
  try {
    const refused = refusal(fstatSync(fd), limits);
    if (refused) return { ok: false, message: refused };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const bytesRead = readSync(fd, buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      // The file grew after the check: the limit holds for what is read, whatever stat said.
      if ((total += bytesRead) > limits.maxBytes) return { ok: false, message: tooLarge(limits, total, true) };
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (e) {
    return { ok: false, message: readFailure(e, limits.what) };
  } finally {
    closeSync(fd);
  }
}
