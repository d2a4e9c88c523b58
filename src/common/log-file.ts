/**
 * Opening a file the proxy appends to (the journal, the audit log, a recording): created 0600 so
 * other users of the machine cannot read it (the umask may only take bits away), never through a
 * symbolic link at its path (a link planted there would send the lines wherever it points), and
 * only when it is a regular file (a FIFO would block the process until someone reads it).
 */
import { constants, fstatSync, openSync, closeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** The mode a new log file is created with; an existing file keeps its own. */
export const LOG_FILE_MODE = 0o600;

// O_NOFOLLOW: a link at the path fails with ELOOP instead of being followed. O_NONBLOCK: a FIFO
// without a reader fails at once (ENXIO) instead of blocking; it changes nothing for a regular file.
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A log file that cannot be opened; the message names it (and the flag, through `what`) and why. */
export class LogFileError extends Error {
  override name = 'LogFileError';
}

function refusal(what: string, file: string, err: NodeJS.ErrnoException): LogFileError {
  if (err.code === 'ELOOP')
    return new LogFileError(`${what}: ${file} is a symbolic link; give the path of the file itself (a link at a log path is never followed)`);
  if (err.code === 'ENXIO') return new LogFileError(`${what}: ${file} is not a regular file (a FIFO or socket)`);
  return new LogFileError(`${what}: cannot open ${file} for appending (${err.code ?? err.message})`);
}

const notRegular = (what: string, file: string) => new LogFileError(`${what}: ${file} is not a regular file`);

/** Opens `file` for appending (created 0600); throws LogFileError naming `what` (e.g. "--journal"). */
export async function openLogFile(file: string, what: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(file, APPEND_FLAGS, LOG_FILE_MODE);
  } catch (err) {
    throw refusal(what, file, err as NodeJS.ErrnoException);
  }
  const stat = await handle.stat().catch(async (err: NodeJS.ErrnoException) => {
    await handle.close();
    throw refusal(what, file, err);
  });
  if (!stat.isFile()) {
    await handle.close();
    throw notRegular(what, file);
  }
  return { handle, size: stat.size };
}

/** The same, synchronously, as a file descriptor (for a writer that opens at start-up). */
export function openLogFileSync(file: string, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(file, APPEND_FLAGS, LOG_FILE_MODE);
  } catch (err) {
    throw refusal(what, file, err as NodeJS.ErrnoException);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(what, file);
    return { fd, size: stat.size };
  } catch (err) {
    closeSync(fd);
    throw err instanceof LogFileError ? err : refusal(what, file, err as NodeJS.ErrnoException);
  }
}
