/**
 * Reading a rotated journal: FILE, FILE.1 … (and FILE.N.gz) in one directory. While the soak runs
 * it counts lines (a rotated file is read once: renames keep its inode, so its count is kept by
 * inode and size); at the end it reads every line's JSON-RPC id.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The files of a rotated log, FILE first. */
export async function rotatedFiles(file) {
  const base = path.basename(file);
  const names = await readdir(path.dirname(file));
  return names.filter((n) => n === base || /^\.\d+(\.gz)?$/.test(n.slice(base.length))).map((n) => path.join(path.dirname(file), n));
}

async function textOf(file) {
  const bytes = await readFile(file);
  return file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
}

const newlines = (text) => {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
};

/** Counts the lines of a rotated journal as it grows. */
export function lineCounter(file) {
  const known = new Map();
  return async function count() {
    let lines = 0;
    const files = await rotatedFiles(file);
    for (const f of files) {
      const info = await stat(f).catch(() => undefined);
      if (!info) continue; // rotated away between the listing and now
      const key = `${info.ino}:${info.size}`;
      // FILE grows; a rotated file (FILE.N, FILE.N.gz) keeps its inode and size once written.
      if (path.basename(f) !== path.basename(file) && known.has(key)) {
        lines += known.get(key);
        continue;
      }
      const n = newlines(await textOf(f).catch(() => ''));
      known.set(key, n);
      lines += n;
    }
    return { lines, files: files.length };
  };
}

/** Every line's JSON-RPC id, with how often each was seen, and lines that are not whole JSON. */
export async function journalIds(file) {
  const ids = new Map();
  let lines = 0;
  let broken = 0;
  const files = await rotatedFiles(file);
  for (const f of files) {
    for (const line of (await textOf(f)).split('\n')) {
      if (line === '') continue;
      lines++;
      try {
        const id = JSON.parse(line).rpc_id;
        ids.set(id, (ids.get(id) ?? 0) + 1);
      } catch {
        broken++;
      }
    }
  }
  return { ids, lines, broken, files: files.length };
}
