/**
 * Reading a file a flag names (a scenario, a key): a regular file only, read through a bounded
 * loop. The file is opened without blocking and checked through the open handle, so a FIFO (whose
 * stat size is 0 and whose open waits for a writer), a device or a directory is refused before a
 * byte is read, and a file that grows after the check still cannot cost more than the limit: the
 * limit is held while reading, not taken from stat.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export type RegularFileRead = { ok: true; bytes: Buffer } | { ok: false; message: string };

export interface RegularFileLimits {
  maxBytes: number;
  /** What the file is, for the refusal of a special file ("a scenario"). */
  what: string;
  /** The refusal of a file past the limit; `atLeast`: the size is what was read before stopping. */
  tooLarge(bytes: number, atLeast: boolean): string;
}

const READ_CHUNK = 64 * 1024;

export async function readRegularFile(file: string, limits: RegularFileLimits): Promise<RegularFileRead> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO for reading otherwise waits until something opens it for writing.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { ok: false, message: readFailure(e, limits.what) };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, message: `is ${kindOf(info)}, not a regular file; ${limits.what} is read from a regular file only` };
    if (info.size > limits.maxBytes) return { ok: false, message: limits.tooLarge(info.size, false) };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      // The file grew after the check: the limit holds for what is read, whatever stat said.
      if (total > limits.maxBytes) return { ok: false, message: limits.tooLarge(total, true) };
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (e) {
    return { ok: false, message: readFailure(e, limits.what) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function kindOf(info: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'a special file';
}

function readFailure(error: unknown, what: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return `is a directory, not a regular file; ${what} is read from a regular file only`;
  if (code === 'EACCES') return 'permission denied';
  return `cannot read the file (${code ?? String(error)})`;
}
