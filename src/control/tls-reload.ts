/**
 * Hot certificate reload for a running proxy: on SIGHUP, and (with --watch) when a certificate or
 * key file changes. A bad new pair is reported and the one in use stays, so renewing a
 * certificate never takes HTTPS down.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/** Writers replace a certificate in several steps (truncate, write, rename): wait for them to settle. */
const SETTLE_MS = 200;

/** Reloads on SIGHUP and on changes of `files`; returns a function that stops both. */
export function reloadTlsOn(runtime: { reloadTls(): string[] }, files: string[], io: { out: (line: string) => void; err: (line: string) => void }): () => void {
  const reload = (why: string) => {
    try {
      for (const line of runtime.reloadTls()) io.out(`${why}: ${line}`);
    } catch (e) {
      io.err(`${why}: certificate not reloaded, the one in use stays: ${(e as Error).message}`);
    }
  };
  const onHup = () => reload('SIGHUP');
  process.on('SIGHUP', onHup);
  let timer: NodeJS.Timeout | undefined;
  // The directory is watched, not the file: a rename onto the file (how most tools renew) keeps firing.
  const watchers: FSWatcher[] = [...new Set(files.map((f) => path.dirname(path.resolve(f))))].map((dir) =>
    watch(dir, (_event, name) => {
      if (name === null || !files.some((f) => path.basename(f) === name.toString())) return;
      clearTimeout(timer);
      timer = setTimeout(() => reload('certificate file changed'), SETTLE_MS);
    }).on('error', () => {}),
  );
  return () => {
    process.off('SIGHUP', onHup);
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
