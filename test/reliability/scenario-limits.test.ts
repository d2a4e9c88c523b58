// A scenario file cannot cost the loader more than its limits: size, rule count, nesting depth and
// alias expansion are each refused with one line naming the limit (and the flag that raises it).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './cli-run.js';

const dir = tempDir(t, 'aap-chaos-limits-');
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const rules = (n: number) => 'rules:\n' + Array.from({ length: n }, (_, i) => `  - { id: r${i}, error: INTERNAL_ERROR }\n`).join('');

t.test('a 20 MB file is refused at once, naming the limit and the flag', async (t) => {
  const huge = write('huge.yaml', rules(326_000).padEnd(20 * 1024 * 1024, '#'));
  const r = await runCli(['validate', huge]);
  t.equal(r.code, 1, 'a bad file exits 1, as the docs say');
  t.match(r.out, /huge\.yaml {2}the scenario is \d+ bytes, more than the limit of 1048576 bytes \(raise it with --max-scenario-bytes\)/);
  t.ok(r.ms < 20_000, `answered in ${r.ms} ms`);
});

t.test('too many rules are refused with file:line; the flag sets the limit', async (t) => {
  const result = loadScenarioText(rules(10_001), 'many.yaml');
  t.equal(result.ok, false);
  if (!result.ok)
    t.equal(
      formatProblem(result.problems[0]!),
      'many.yaml:1:1  /rules  the scenario has 10001 rules, more than the limit of 10000 (raise it with --max-scenario-rules)',
    );
  const three = write('three.yaml', rules(3));
  const capped = await runCli(['validate', '--max-scenario-rules', '2', three]);
  t.equal(capped.code, 1);
  t.match(capped.out, /three\.yaml:1:1 {2}\/rules {2}the scenario has 3 rules, more than the limit of 2/);
  t.equal((await runCli(['validate', three])).code, 0, 'valid under the default limit: exit 0');
});

t.test('a YAML alias bomb is a problem at file:line, exit 1, no stack trace', async (t) => {
  const bomb = write(
    'bomb.yaml',
    'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nrules: []\n',
  );
  const r = await runCli(['validate', bomb]);
  t.equal(r.code, 1);
  t.match(r.out, /bomb\.yaml:2:8 {2}YAML aliases expand more than 100 times/);
  t.notMatch(r.out + r.err, /\n\s+at /);
});

t.test('nesting 5,000 and 10,000 deep is reported as the depth limit', async (t) => {
  for (const depth of [5_000, 10_000]) {
    for (const text of [`rules: ${'['.repeat(depth)}${']'.repeat(depth)}\n`, `rules:\n  ${'- '.repeat(depth)}x\n`]) {
      const result = loadScenarioText(text, 'deep.yaml');
      t.equal(result.ok, false);
      if (result.ok) continue;
      t.match(formatProblem(result.problems[0]!), /^deep\.yaml:\d+:\d+ {2}collections are nested more than 64 levels deep, past the nesting limit$/);
    }
  }
});

t.test('validate without a file is a usage error: exit 2', async (t) => {
  t.equal((await runCli(['validate'])).code, 2);
});
