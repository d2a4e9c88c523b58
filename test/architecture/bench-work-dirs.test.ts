// The bench's temporary folders go when its process ends, however it ends: an interrupted
// `npm run bench` used to leave its work folder (a journal file, the 10,000-rule scenario, nginx's
// files) in the shared temp directory. Every folder of bench/ comes from bench/work-dir.js.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { tempDir } from '../helpers/temp-dir.js';
import { mkdtempCalls } from '../helpers/mkdtemp-calls.js';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));
const WORK_DIR = path.join(BENCH, 'work-dir.js');

/** Runs a script that makes a work folder under `parent`, prints its path, and then does `then`. */
async function folderOf(parent: string, then: string): Promise<{ dir: string; code: number | null }> {
  const script = `
    import { workDir, keepWorkDir } from ${JSON.stringify(WORK_DIR)};
    const dir = workDir('bench-test-', ${JSON.stringify(parent)});
    process.once('SIGTERM', () => process.exit(130)); // as bench/run.js and bench/compare.js stop
    console.log(dir);
    ${then}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
    if (out.includes('\n') && then.includes('setInterval')) child.kill('SIGTERM');
  });
  const [code] = await once(child, 'exit');
  return { dir: out.trim(), code };
}

t.test('a work folder is removed when the run ends, fails or is stopped, and kept when asked', async (t) => {
  const parent = tempDir(t, 'aap-chaos-bench-dirs-');
  const ended = await folderOf(parent, '');
  t.ok(ended.dir.startsWith(parent) && !existsSync(ended.dir), 'a run that ends removes it');
  const failed = await folderOf(parent, 'process.exitCode = 1; throw new Error("the dealer did not start");');
  t.equal(failed.code, 1);
  t.notOk(existsSync(failed.dir), 'a run that fails removes it');
  const stopped = await folderOf(parent, 'setInterval(() => {}, 1000);');
  t.equal(stopped.code, 130, 'stopped by SIGTERM');
  t.notOk(existsSync(stopped.dir), 'a run stopped in the middle removes it');
  const kept = await folderOf(parent, 'keepWorkDir(dir);');
  t.ok(existsSync(kept.dir), 'a folder kept for its profiles stays');
  t.same(readdirSync(parent), [path.basename(kept.dir)], 'and nothing else is left');
});

t.test('no bench script but bench/work-dir.js calls mkdtemp', async (t) => {
  const files = readdirSync(BENCH, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(BENCH, f));
  t.ok(files.includes(WORK_DIR) && files.includes(path.join(BENCH, 'run.js')), 'the scan reaches bench/ and its helper');
  t.ok(mkdtempCalls(readFileSync(WORK_DIR, 'utf8')).length > 0, 'and finds the call in bench/work-dir.js');
  const offenders = files
    .filter((f) => f !== WORK_DIR)
    .sort()
    .flatMap((file) => mkdtempCalls(readFileSync(file, 'utf8')).map((n) => `${path.relative(BENCH, file)}:${n}`));
  t.same(offenders, [], 'make the folder with workDir(prefix) from bench/work-dir.js: it goes when the process ends');
});
