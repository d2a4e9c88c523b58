/**
 * Reading a scenario file from disk (`--scenario FILE`, `--watch`, `validate`): a regular file
 * only, read through a bounded loop. The file is opened without blocking and checked through the
 * open handle, so a FIFO (whose stat size is 0 and whose open waits for a writer), a device or a
 * directory is refused before a byte is read, and a file that grows after the check still cannot
 * cost more than the size limit: the limit is held while reading, not taken from stat.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { scenarioLimits, tooLargeMessage } from './limits.js';

export type FileText = { ok: true; text: string } | { ok: false; message: string };

const READ_CHUNK = 64 * 1024;

export async function readScenarioFileText(file: string): Promise<FileText> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO for reading otherwise waits until something opens it for writing.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { ok: false, message: readFailure(e) };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, message: `is ${kindOf(info)}, not a regular file; a scenario is read from a regular file only` };
    const limit = scenarioLimits().maxBytes;
    if (info.size > limit) return { ok: false, message: tooLargeMessage(info.size) };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      // The file grew after the check: the limit holds for what is read, whatever stat said.
      if (total > limit) return { ok: false, message: tooLargeMessage(total, true) };
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return { ok: true, text: Buffer.concat(chunks, total).toString('utf8') };
  } catch (e) {
    return { ok: false, message: readFailure(e) };
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

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory, not a scenario file';
  if (code === 'EACCES') return 'permission denied';
  return `cannot read the file (${code ?? String(error)})`;
}
