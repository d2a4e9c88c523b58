// `validate` checks every file it is given, not only the last: a bad file first and a good one
// after it still exits 1 and names the bad one.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../reliability/cli-run.js';

t.test('validate BAD GOOD and GOOD BAD both exit 1 naming the bad file', async (t) => {
  const dir = tempDir(t, 'aap-chaos-validate-');
  const good = path.join(dir, 'good.yaml');
  const bad = path.join(dir, 'bad.yaml');
  await writeFile(good, 'scenario: good\nrules:\n  - id: one\n    error: INTERNAL_ERROR\n');
  await writeFile(bad, 'scenario: bad\nrules:\n  - id: one\n    error: NOT_A_CODE\n');
  for (const files of [
    [bad, good],
    [good, bad],
  ]) {
    const run = await runCli(['validate', ...files]);
    t.equal(run.code, 1, `exit 1 for ${files.map((f) => path.basename(f)).join(' ')}`);
    t.match(run.out + run.err, /bad\.yaml:4/, 'the bad file is named with its line');
  }
  const both = await runCli(['validate', good, good]);
  t.equal(both.code, 0, 'two good files: exit 0');
});
