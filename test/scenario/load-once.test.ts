/**
 * A scenario is parsed once on the way to serving: plain JSON and plain YAML by a fast reader, and
 * the full YAML parser (which keeps positions) runs only when a problem must name its line. The
 * problems themselves read exactly as before: file:line:col, JSON Pointer, message.
 */
import t, { type Test } from 'tap';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'yaml';
import { startRuntime } from '../../src/runtime.js';
import { formatProblem, loadScenarioText, type Scenario } from '../../src/scenario/load.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The loader with the full YAML parse counted (the parse itself, not the loader, is wrapped). */
async function countingLoader(t: Test) {
  const calls = { parseDocument: 0 };
  // Every full parse composes its document once.
  class CountingComposer extends yaml.Composer {
    constructor(...args: ConstructorParameters<typeof yaml.Composer>) {
      super(...args);
      calls.parseDocument++;
    }
  }
  const load: typeof import('../../src/scenario/load.js') = await t.mockImport('../../src/scenario/load.js', {
    // The full parser is loaded on first use, through this one module.
    '../../src/scenario/yaml-library.ts': { yamlLibrary: () => ({ ...yaml, Composer: CountingComposer }) },
  });
  return { load, calls };
}

const dir = tempDir(t, 'aap-chaos-load-once-');

t.test('the 10,000-rule bench file loads without the full YAML parser', async (t) => {
  const file = path.join(dir, 'rules-10000.yaml');
  // The bench's own generator (bench/rules-scenario.js), so this guards the file the bench times.
  const { writeNonMatchingRules } = (await import(new URL('../../bench/rules-scenario.js', import.meta.url).href)) as {
    writeNonMatchingRules: (file: string, count: number) => Promise<void>;
  };
  await writeNonMatchingRules(file, 10_000);
  const { load, calls } = await countingLoader(t);
  const result = await load.loadScenarioFile(file);
  t.ok(result.ok, 'the file is valid');
  if (result.ok) t.equal(result.scenario.rules?.length, 10_000);
  t.equal(calls.parseDocument, 0, 'the positions-keeping parser never ran');
});

t.test('a problem in a fast-read file is located by one full parse, with the same message as before', async (t) => {
  const { load, calls } = await countingLoader(t);
  const text = 'rules:\n  - id: a\n    when: { probability: 2 }\n    error: INTERNAL_ERROR\n';
  const result = load.loadScenarioText(text, 'p.yaml');
  t.equal(calls.parseDocument, 1);
  t.equal(result.ok, false);
  if (!result.ok) t.same(result.problems.map(load.formatProblem), ['p.yaml:3:26  /rules/0/when/probability  must be <= 1']);
});

t.test('a JSON-syntax file with a bad value still names its line and JSON Pointer', async (t) => {
  const json =
    '{\n  "scenario": "j",\n  "rules": [\n    { "id": "a", "when": { "probability": 2 }, "error": "INTERNAL_ERROR" },\n    { "id": "b", "error": "NO_SUCH_CODE" }\n  ]\n}\n';
  const { load, calls } = await countingLoader(t);
  const result = load.loadScenarioText(json, 'j.json');
  t.equal(result.ok, false);
  if (!result.ok)
    t.same(result.problems.map(formatProblem), [
      'j.json:4:43  /rules/0/when/probability  must be <= 1',
      `j.json:5:27  /rules/1/error  ${(load.loadScenarioText('rules:\n  - id: b\n    error: NO_SUCH_CODE\n', 'x') as { problems: Array<{ message: string }> }).problems[0]!.message}`,
    ]);
  const good = load.loadScenarioText(json.replace('"probability": 2', '"probability": 0.5').replace('NO_SUCH_CODE', 'INTERNAL_ERROR'), 'j.json');
  t.ok(good.ok);
  t.equal(calls.parseDocument, 2, 'the good file took the fast path; each bad one one full parse');
});

t.test('a key written twice is still refused, in JSON syntax and in plain YAML', async (t) => {
  const json = loadScenarioText('{\n  "rules": [],\n  "rules": []\n}\n', 'd.json');
  t.equal(json.ok, false);
  if (!json.ok) t.match(json.problems.map(formatProblem), [/^d\.json:3:3 {2}syntax error: Map keys must be unique/]);
  const nested = loadScenarioText('{"rules": [{"id": "a", "error": "INTERNAL_ERROR", "id": "b"}]}', 'n.json');
  t.equal(nested.ok, false);
  if (!nested.ok) t.match(nested.problems.map(formatProblem), [/^n\.json:1:51 {2}syntax error: Map keys must be unique/]);
  const yamlText = loadScenarioText('rules:\n  - id: a\n    error: INTERNAL_ERROR\n    id: b\n', 'd.yaml');
  t.equal(yamlText.ok, false);
  if (!yamlText.ok) t.match(yamlText.problems.map(formatProblem), [/^d\.yaml:4:5 {2}syntax error: Map keys must be unique/]);
});

t.test('YAML 1.2 core values on the fast path: no dates, no yes/no booleans, octal as 0o', async (t) => {
  const result = loadScenarioText('description: 2001-01-01\nseed: 0o17\nrules:\n  - id: "yes"\n    description: no\n    error: INTERNAL_ERROR\n', 'v.yaml');
  t.ok(result.ok);
  if (!result.ok) return;
  t.equal(result.scenario.description, '2001-01-01');
  t.equal(result.scenario.seed, 15);
  t.equal(result.scenario.rules?.[0]?.description, 'no');
});

t.test('a scenario object is checked without a YAML parse; a bad rule names its JSON Pointer', async (t) => {
  const { load, calls } = await countingLoader(t);
  const given: Scenario = { rules: [{ id: 'ok', error: 'INTERNAL_ERROR' }] };
  const loaded = load.loadScenarioText(JSON.stringify(given, null, 2), 'scenario object');
  t.ok(loaded.ok);
  t.equal(calls.parseDocument, 0);

  const runtime = await startRuntime({ port: 0, adminPort: 0, scenario: given });
  t.teardown(() => runtime.close());
  t.equal(runtime.engine?.rules().length, 1);
  t.same(given, { rules: [{ id: 'ok', error: 'INTERNAL_ERROR' }] }, 'the caller’s object is not changed (no defaults written into it)');

  const bad: Scenario = {
    rules: [
      { id: 'ok', error: 'INTERNAL_ERROR' },
      { id: 'late', delay: { ms: -5 } },
    ],
  };
  await t.rejects(startRuntime({ port: 0, adminPort: 0, scenario: bad }), {
    name: 'ScenarioRejectedError',
    problems: ['scenario object:10:15  /rules/1/delay/ms  must be >= 0'],
  });
  await t.rejects(runtime.use({ rules: [{ id: 'x', error: 'NOPE' }] } as unknown as Scenario), {
    name: 'ScenarioRejectedError',
    problems: [/^scenario object:\d+:\d+ {2}\/rules\/0\/error {2}/],
  });
});

t.test('bench/load-time.js times this build, split into its steps', async (t) => {
  // The split repeats the build's own steps in the build's own modules: it broke once when the
  // nesting check it called was renamed, and nothing but a run of it shows that.
  const { execFile } = await import('node:child_process');
  const script = fileURLToPath(new URL('../../bench/load-time.js', import.meta.url));
  const { code, out } = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(process.execPath, [script, '--runs', '1', '--rules', '200'], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
  t.equal(code, 0, out);
  for (const step of ['startRuntime to serving', 'read + parse', 'validation', 'engine build', 'listen'])
    t.match(out, new RegExp(`${step.replace('+', '\\+')}\\s+\\d+ ms`), step);
});
