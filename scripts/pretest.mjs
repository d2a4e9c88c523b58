// `npm test`'s first step: everything the suite needs, with the independent steps side by side.
// The generated sources come first (the build and the type check both read them); then tap's
// plugin set, the build (with the dashboard's script) and the type check of src/ and test/ run
// at once, since none reads what another writes; the format check last. On two cores this takes
// about half the time of running them one after another. Any failing step fails the whole.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

// Written once everything the suite reads is built: `.ci/run` starts its other Node versions'
// subset runs on this, beside the whole suite, rather than building a second time.
const READY = 'dist/.pretest-ready';
rmSync(READY, { force: true });

const run = (command) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`"${command}" failed (${signal ?? `exit ${code}`})`))));
  });

try {
  await run('npm run gen');
  await Promise.all([
    // A fresh `npm ci` leaves tap's plugin set built with its TypeScript plugin, which package.json switches off.
    run('tap build'),
    run('npm run build:code'),
    run('npm run typecheck:tests'),
  ]);
  await run('npm run format:check');
  mkdirSync('dist', { recursive: true });
  writeFileSync(READY, `${new Date().toISOString()}\n`);
} catch (err) {
  process.stderr.write(`pretest: ${err.message}\n`);
  process.exit(1);
}
