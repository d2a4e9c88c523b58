/**
 * A file appended to in whole lines that rotates by size: past `maxBytes` the file becomes
 * FILE.1 (FILE.1 becomes FILE.2, …, up to `keep` files; the oldest is deleted), optionally
 * gzip-compressed to FILE.1.gz, and a new FILE is started. `reopen()` closes and opens the path
 * again, for an outside rotation (logrotate's `create`, then SIGHUP).
 *
 * Every method is asynchronous and none may overlap: the journal's writer and the audit log
 * each call them from their own queue, off the request path. A caller writes whole lines and
 * decides where to rotate (`wouldPass`), so a line is never split across two files.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import { LOG_FILE_MODE, openLogFile } from './log-file.js';

export interface RotationSettings {
  /** Rotate before a write would take the file past this many bytes (undefined: never). */
  maxBytes?: number;
  /** Rotated files kept (FILE.1 … FILE.keep). */
  keep?: number;
  /** Gzip each rotated file to FILE.N.gz. */
  compress?: boolean;
}

export const DEFAULT_ROTATION_KEEP = 5;

/** FILE.N, or FILE.N.gz: the names a rotated file may have. */
export const rotatedName = (file: string, n: number, gz: boolean): string => `${file}.${n}${gz ? '.gz' : ''}`;

export class RotatingFile {
  private handle: FileHandle | undefined;
  /** Bytes in the file now (what it held when opened, plus what was written since). */
  size = 0;
  /** Rotations done since the start (for the metric and tests). */
  rotations = 0;
  /** The gzip of the last rotated file, still running; the next rotation waits for it. */
  private compressing: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    /** Names the file in messages: the flag that set it, e.g. "--journal". */
    readonly what: string,
    readonly rotation: RotationSettings = {},
    /** Told of a rotated file that could not be compressed or deleted (the line names the file). */
    private readonly warn: (message: string) => void = () => {},
  ) {}

  async open(): Promise<void> {
    const { handle, size } = await openLogFile(this.file, this.what);
    this.handle = handle;
    this.size = size;
  }

  /** True when `bytes` more keep the file within its size limit. */
  fits(bytes: number): boolean {
    const max = this.rotation.maxBytes;
    return max === undefined || this.size + bytes <= max;
  }

  /** True when writing `bytes` more would take a non-empty file past its size limit. */
  wouldPass(bytes: number): boolean {
    const max = this.rotation.maxBytes;
    return max !== undefined && this.size > 0 && this.size + bytes > max;
  }

  /** Appends whole lines; resolves once the kernel has them. */
  async write(text: string): Promise<void> {
    if (!this.handle) throw new Error(`${this.what}: ${this.file} is not open`);
    const bytes = Buffer.from(text);
    // A regular file takes a write whole but on a full disk; the loop keeps a short write's rest.
    for (let at = 0; at < bytes.length; ) at += (await this.handle.write(bytes, at, bytes.length - at)).bytesWritten;
    this.size += bytes.length;
  }

  /** FILE → FILE.1 (the older ones shifted, the oldest past `keep` deleted), then a new FILE. */
  async rotate(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    await this.compressing;
    await this.shiftRotated(Math.max(1, this.rotation.keep ?? DEFAULT_ROTATION_KEEP));
    await rename(this.file, rotatedName(this.file, 1, false));
    this.rotations++;
    await this.open();
    if (this.rotation.compress) this.compressing = this.gzip(rotatedName(this.file, 1, false));
  }

  /** FILE.N → FILE.N+1, newest last, for the rotated files there are; those that would pass `keep` are deleted. */
  private async shiftRotated(keep: number): Promise<void> {
    const base = basename(this.file);
    const rotated = (await readdir(dirname(this.file)))
      .map((name) => (name.startsWith(`${base}.`) ? /^(\d+)(\.gz)?$/.exec(name.slice(base.length + 1)) : null))
      .filter((m) => m !== null)
      .map((m) => ({ n: Number(m[1]), gz: m[2] !== undefined }))
      .sort((a, b) => b.n - a.n);
    // Both forms are shifted, so a plain FILE.1 left by a run without compression is kept too.
    for (const { n, gz } of rotated) {
      if (n >= keep) await unlinkIfThere(rotatedName(this.file, n, gz));
      else await renameIfThere(rotatedName(this.file, n, gz), rotatedName(this.file, n + 1, gz));
    }
  }

  /** Closes and opens the path again: after an outside rotation the lines go to the new file. */
  async reopen(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    await this.open();
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    await this.compressing;
  }

  /** FILE.1 → FILE.1.gz, in the thread pool; the plain file is deleted once the gzip is whole. */
  private async gzip(plain: string): Promise<void> {
    try {
      await pipeline(createReadStream(plain), createGzip(), createWriteStream(`${plain}.gz`, { mode: LOG_FILE_MODE, flags: 'wx' }));
      await unlink(plain);
    } catch (err) {
      this.warn(`${this.what}: ${plain} was kept uncompressed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
}

async function renameIfThere(from: string, to: string): Promise<void> {
  await rename(from, to).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

async function unlinkIfThere(file: string): Promise<void> {
  await unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
