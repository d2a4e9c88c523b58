// Guards the shared machine's temporary directory: no test makes a directory with mkdtemp itself,
// since one its test forgets to remove is left behind by every run. Every test directory comes from
// tempDir (test/helpers/temp-dir.ts), which removes it when the test that made it ends.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempCalls } from '../helpers/mkdtemp-calls.js';

const TEST = fileURLToPath(new URL('../', import.meta.url));
/** The one file that may make a temporary directory. */
const ALLOWED = path.join(TEST, 'helpers', 'temp-dir.ts');
const FIXTURES = path.join(TEST, 'fixtures');

/** Every .ts file under test/, test/fixtures/ left out. */
function testFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (full === FIXTURES) continue;
    if (entry.isDirectory()) files.push(...testFiles(full));
    else if (entry.name.endsWith('.ts')) files.push(full);
  }
  return files;
}

t.test('the scan sees either call, awaited, spaced or through fs, and nothing else', async (t) => {
  const name = 'mk' + 'dtemp';
  const text = [
    `const a = await ${name}(path.join(tmpdir(), 'a-'));`,
    `const b = ${name}Sync (path.join(tmpdir(), 'b-'));`,
    `fs.${name}(prefix, done);`,
    `import { ${name}Sync } from 'node:fs';`,
    `const c = tempDir(t, 'c-');`,
    `const d = my${name}(x);`,
  ].join('\n');
  t.same(mkdtempCalls(text), [1, 2, 3]);
});

t.test('no test file but test/helpers/temp-dir.ts calls mkdtemp: each directory goes with its test', async (t) => {
  const files = testFiles(TEST);
  t.ok(files.includes(ALLOWED) && files.includes(fileURLToPath(import.meta.url)), 'the scan reaches the helpers and this file');
  t.ok(mkdtempCalls(readFileSync(ALLOWED, 'utf8')).length > 0, 'and finds the call in test/helpers/temp-dir.ts');
  const offenders = files
    .filter((file) => file !== ALLOWED)
    .sort()
    .flatMap((file) => {
      const lines = readFileSync(file, 'utf8').split('\n');
      return mkdtempCalls(lines.join('\n')).map((n) => `${path.relative(TEST, file)}:${n}: ${lines[n - 1]!.trim()}`);
    });
  t.same(offenders, [], "make the directory with tempDir(t, prefix) from test/helpers/temp-dir.ts: it is removed when t's test ends");
});
