// Nesting past the limit is a problem at file:line wherever a scenario comes from, however the text
// quotes, comments or escapes around its brackets: no reader recurses without bound, and no
// scenario ends the process (validate exits 1, PUT answers 422, --watch keeps the old scenario).
import t from 'tap';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';
import { adminCall, startTestRuntime } from '../control/control-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BIN, runCli } from './cli-run.js';

const dir = tempDir(t, 'aap-chaos-depth-');
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const TOO_DEEP = /^\S+:\d+:\d+ {2}collections are nested more than 64 levels deep, past the nesting limit$/;

/** Texts that once hid their brackets from the nesting check, each about `n` levels deep. */
export function hidingTexts(n: number): Array<[string, string]> {
  return [
    ['an apostrophe in a plain scalar', `scenario: deep\ndescription: it 'works\nrules: []\nx: ${deep(n)}\n`],
    ['a quote ending in a space, then a flow', `rules: []\nx: { a: 'b ' }\ny: ${deep(n)}\n`],
    ['JSON-style closers in a string right after a colon', `{"rules":[],${'"x":['.repeat(n / 2)}{"a":"${']'.repeat(n)}"}${']'.repeat(n / 2)}}\n`],
    ['a hash inside a quoted string', `rules: []\nx: [ "a #", ${deep(n)} ]\n`],
    ['escaped quotes in a single-quoted string', `rules: []\nx: ['a'']]]]]]]]]]]]]]]]]]]]', ${deep(n)}]\n`],
    ['a comment ended by a lone carriage return', `rules: []\nx: # c\r ${deep(n)}\n`],
    ['block sequences', `rules:\n  ${'- '.repeat(n)}x\n`],
  ];
}

t.test('every hiding text is refused at a line, at 100, 5,000 and 20,000 levels', async (t) => {
  for (const n of [100, 5_000, 20_000]) {
    for (const [what, text] of hidingTexts(n)) {
      let result;
      try {
        result = loadScenarioText(text, 'deep.yaml');
      } catch (e) {
        t.fail(`${what} (${n}): threw ${(e as Error).message}`);
        continue;
      }
      t.equal(result.ok, false, `${what} (${n}) is refused`);
      // The YAML parser reads a lone carriage return as comment text; other readers end the line there.
      if (!result.ok && !what.includes('carriage return'))
        t.match(formatProblem(result.problems[0]!), TOO_DEEP, `${what} (${n}): ${formatProblem(result.problems[0]!)}`);
    }
  }
});

t.test('64 levels load; the limit counts collections, not brackets in strings', async (t) => {
  const ok = loadScenarioText(`rules: []\nreport: { x: ${deep(60)} }\n`, 'ok.yaml');
  t.equal(ok.ok, false, 'refused for its unknown key, not its depth');
  if (!ok.ok) t.notMatch(formatProblem(ok.problems[0]!), /nested/);
  const strings = loadScenarioText(
    `rules:\n${Array.from({ length: 200 }, (_, i) => `  - { id: r${i}, error: INTERNAL_ERROR, message: "it 'says [[[ " }\n`).join('')}`,
    's.yaml',
  );
  t.equal(strings.ok, true, 'brackets and quotes inside strings are no nesting');
});

t.test('validate exits 1 with file:line on a 40 KB deep file, no stack trace', async (t) => {
  const file = path.join(dir, 'deep.yaml');
  writeFileSync(file, hidingTexts(20_000)[0]![1]);
  const r = await runCli(['validate', file]);
  t.equal(r.code, 1, r.out + r.err);
  t.match(r.out, /deep\.yaml:4:\d+ {2}collections are nested more than 64 levels deep/);
  t.notMatch(r.out + r.err, /Maximum call stack|\n\s+at /);
});

t.test('PUT /scenario answers 422 and keeps the scenario', async (t) => {
  const rt = await startTestRuntime(t);
  for (const [what, text] of hidingTexts(20_000).filter(([what]) => !what.includes('carriage return'))) {
    const reply = await adminCall(rt, 'PUT', '/scenario', { body: text, contentType: 'application/yaml' });
    t.equal(reply.status, 422, what);
    t.match(reply.json?.error?.problems?.[0], /nested more than 64 levels/, what);
  }
  t.equal(rt.status().scenario, 'control-test');
});

t.test('a proxy with --watch stays up and keeps its scenario when the file becomes too deep', async (t) => {
  const file = path.join(dir, 'watched.yaml');
  writeFileSync(file, 'scenario: before\nrules: []\n');
  const child = spawn(process.execPath, [BIN, '--scenario', file, '--watch', '--port', '0', '--admin-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  let exited: number | null | undefined;
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout.on('data', (c) => ((output += c), poke()));
  child.stderr.on('data', (c) => ((output += c), poke()));
  child.on('exit', (code) => ((exited = code), poke()));
  const waitFor = async (re: RegExp) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const m = output.match(re);
      if (m) return m;
      if (exited !== undefined || Date.now() > deadline) throw new Error(`${exited ?? 'still running'} before ${re}: ${output}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 1_000);
      });
    }
  };
  const [, adminUrl] = await waitFor(/admin API on (http:\/\/\S+)/);
  await waitFor(/watching/);
  writeFileSync(file, hidingTexts(20_000)[0]![1]);
  await waitFor(/was not loaded[\s\S]*nested more than 64 levels/);
  const status = (await (await fetch(`${adminUrl}/status`)).json()) as { scenario: string };
  t.equal(status.scenario, 'before', 'the old scenario keeps running');
  writeFileSync(file, 'scenario: after\nrules: []\n');
  await waitFor(/reloaded/);
  t.equal(((await (await fetch(`${adminUrl}/status`)).json()) as { scenario: string }).scenario, 'after', 'and the watch still works');
  t.notMatch(output, /RangeError|Maximum call stack/);
  child.kill('SIGTERM');
});
