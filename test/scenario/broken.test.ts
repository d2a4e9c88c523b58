// Every file in broken/ is a scenario with known mistakes; its .expected sibling holds the
// exact lines a user sees, positions included.
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';

const dir = fileURLToPath(new URL('./broken/', import.meta.url));
const files = (await readdir(dir)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();

t.ok(files.length >= 25, `at least 25 broken scenarios (${files.length})`);
t.ok(files.some((f) => f.endsWith('.json')) && files.some((f) => f.endsWith('.yaml')), 'the corpus has YAML and JSON files');

for (const file of files) {
  t.test(file, async (t) => {
    const text = await readFile(path.join(dir, file), 'utf8');
    const expected = await readFile(path.join(dir, file.replace(/\.(ya?ml|json)$/, '.expected')), 'utf8');
    const result = loadScenarioText(text, file);
    t.equal(result.ok, false, 'is rejected');
    if (result.ok) return;
    t.equal(result.problems.map(formatProblem).join('\n') + '\n', expected, 'reports exactly the expected problems');
    for (const p of result.problems) {
      t.equal(p.file, file);
      t.ok(p.line >= 1 && p.col >= 1, `${formatProblem(p)} has a position`);
      t.notMatch(p.message, /\n|    at /, 'one line, no stack trace');
    }
  });
}
