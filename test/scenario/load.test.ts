import t from 'tap';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  formatProblem,
  listBuiltinScenarios,
  loadScenarioFile,
  loadScenarioRef,
  loadScenarioText,
  resolveScenarioRef,
  validateFiles,
} from '../../src/scenario/load.js';
import { ruleErrorSpec } from '../../src/scenario/effect-kinds.js';
import { tempDir } from '../helpers/temp-dir.js';

const workDir = tempDir(t, 'aap-chaos-scenario-');

t.test('a valid YAML scenario loads with the documented defaults filled in', async (t) => {
  const result = loadScenarioText('rules:\n  - id: throttle\n    rate_limit: { limit: 5, window_ms: 10000 }\n', 'my-storm.yaml');
  t.ok(result.ok);
  if (!result.ok) return;
  t.equal(result.scenario.scenario, 'my-storm', 'the name defaults to the file name');
  t.equal(result.scenario.profile, 'auto');
  t.same(result.scenario.report, { retry_after_tolerance_ms: 50, backoff_max_retries: 5, same_vehicle_max_repeats: 2, storm_tolerance: 0 });
  t.same(result.scenario.rules![0], { id: 'throttle', rate_limit: { limit: 5, window_ms: 10000 }, enabled: true, key: 'ip' });
});

t.test('JSON files are read by the same parser, with positions', async (t) => {
  const json = '{\n\t"scenario": "j",\n\t"rules": [\n\t\t{ "id": "a", "when": { "probability": 2 }, "error": "INTERNAL_ERROR" }\n\t]\n}\n';
  const bad = loadScenarioText(json, 'j.json');
  t.equal(bad.ok, false);
  if (!bad.ok) t.same(bad.problems.map(formatProblem), ['j.json:4:41  /rules/0/when/probability  must be <= 1']);
  const good = loadScenarioText(json.replace('"probability": 2', '"probability": 0.5'), 'j.json');
  t.ok(good.ok);
});

t.test('both forms of error are accepted and read the same', async (t) => {
  const flat = loadScenarioText('rules:\n  - id: a\n    error: RATE_LIMITED\n    retry_after_ms: 2000\n    message: slow down\n', 'f.yaml');
  const object = loadScenarioText('rules:\n  - id: a\n    error: { code: RATE_LIMITED, retry_after_ms: 2000, message: slow down }\n', 'o.yaml');
  t.ok(flat.ok && object.ok);
  if (!flat.ok || !object.ok) return;
  const expected = { code: 'RATE_LIMITED', retry_after_ms: 2000, message: 'slow down' };
  t.same(ruleErrorSpec(flat.scenario.rules![0]!), expected);
  t.same(ruleErrorSpec(object.scenario.rules![0]!), expected);
});

t.test('every problem of a file is reported at once, in file order', async (t) => {
  const text = ['scenario: x', 'colour: red', 'rules:', '  - id: a', '    when: { probability: 3 }', '    error: NOPE', '  - id: a'].join('\n');
  const result = loadScenarioText(text, 'x.yaml');
  t.equal(result.ok, false);
  if (result.ok) return;
  t.same(
    result.problems.map((p) => [p.line, p.col, p.path]),
    [
      [2, 1, '/colour'],
      [5, 26, '/rules/0/when/probability'],
      [6, 12, '/rules/0/error'],
      [7, 9, '/rules/1/id'],
    ],
  );
});

t.test('loadScenarioFile names the file and never throws', async (t) => {
  const file = path.join(workDir, 'bad.yaml');
  await writeFile(file, 'rules:\n  - id: a\n    delay: { ms: -1 }\n');
  const result = await loadScenarioFile(file);
  t.equal(result.ok, false);
  if (!result.ok) t.equal(formatProblem(result.problems[0]!), `${file}:3:18  /rules/0/delay/ms  must be >= 0`);

  const missing = await loadScenarioFile(path.join(workDir, 'nope.yaml'));
  t.equal(missing.ok, false);
  if (!missing.ok) t.equal(formatProblem(missing.problems[0]!), `${path.join(workDir, 'nope.yaml')}  no such file`);

  const directory = await loadScenarioFile(workDir);
  t.equal(directory.ok, false);
  if (!directory.ok) t.match(directory.problems[0]!.message, /is a directory/);
});

t.test('resolveScenarioRef: names stay inside the built-in folder, paths are read as given', async (t) => {
  const builtinDir = path.join(workDir, 'builtin');
  await mkdir(builtinDir, { recursive: true });
  await writeFile(path.join(builtinDir, 'calm.yaml'), 'description: Nothing happens.\nrules: []\n');
  await writeFile(path.join(workDir, 'secret.yaml'), 'rules: []\n');

  t.same(await resolveScenarioRef('calm', builtinDir), { ok: true, path: path.join(builtinDir, 'calm.yaml'), builtin: true });
  t.same(await resolveScenarioRef('./mine.yaml', builtinDir), { ok: true, path: './mine.yaml', builtin: false });
  t.same(await resolveScenarioRef('/abs/mine.json', builtinDir), { ok: true, path: '/abs/mine.json', builtin: false });
  t.same(await resolveScenarioRef('mine.yml', builtinDir), { ok: true, path: 'mine.yml', builtin: false });

  const unknown = await resolveScenarioRef('stormy', builtinDir);
  t.same(unknown, { ok: false, message: 'no built-in scenario named "stormy"; built-in scenarios: calm' });
  for (const escape of ['..', '.', '~secret', '-rf']) {
    const r = await resolveScenarioRef(escape, builtinDir);
    t.equal(r.ok, false, `${escape} is refused`);
    if (!r.ok) t.match(r.message, /built-in scenarios: calm/);
  }
});

t.test('loadScenarioRef loads built-ins by name and explains an unknown one', async (t) => {
  const storm = await loadScenarioRef('rate-limit-storm');
  t.ok(storm.ok);
  if (storm.ok) t.equal(storm.scenario.scenario, 'rate-limit-storm');
  const unknown = await loadScenarioRef('no-such-scenario');
  t.equal(unknown.ok, false);
  if (!unknown.ok)
    t.match(formatProblem(unknown.problems[0]!), /^no-such-scenario {2}no built-in scenario named "no-such-scenario"; built-in scenarios: .*rate-limit-storm/);
});

t.test('listBuiltinScenarios gives names and descriptions', async (t) => {
  const list = await listBuiltinScenarios();
  const demo = list.find((s) => s.name === 'demo');
  t.ok(demo);
  t.match(demo!.description, /RATE_LIMITED/);
  t.same(
    list.map((s) => s.name),
    [...list.map((s) => s.name)].sort(),
    'sorted by name',
  );
});

t.test('validateFiles: one line per problem and a summary', async (t) => {
  const good = path.join(workDir, 'good.yaml');
  const bad = path.join(workDir, 'two-problems.yaml');
  await writeFile(good, 'rules: []\n');
  await writeFile(bad, 'rules:\n  - id: a\n    when: { probability: 2 }\n    foo: 1\n');

  const allGood = await validateFiles([good, 'passthrough']);
  t.same(allGood, { ok: true, output: '2 files checked: all valid\n' });

  const mixed = await validateFiles([good, bad]);
  t.equal(mixed.ok, false);
  t.equal(
    mixed.output,
    [`${bad}:3:26  /rules/0/when/probability  must be <= 1`, `${bad}:4:5  /rules/0/foo  unknown key "foo"`, '2 files checked: 1 invalid, 2 problems', ''].join(
      '\n',
    ),
  );
});
