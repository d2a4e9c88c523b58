/**
 * The fast readers (js-yaml for YAML, JSON.parse for JSON) must build exactly the document the full YAML parser
 * builds, or step aside: a text they read must be one the full parser accepts without an error,
 * giving a deeply, strictly equal value. Checked on every shipped scenario, on edge cases picked
 * by hand, and on thousands of seeded mutations of real files.
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import { readYamlText } from '../../src/scenario/yaml-text.js';
import { readJsonText } from '../../src/scenario/json-text.js';
import { SeededRandom } from '../../src/common/random.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The full parser's reading, as loadScenarioText does it: the value, or undefined on any error. */
function fullRead(text: string): { value: unknown } | undefined {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  if (doc.errors.length > 0) return undefined;
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch {
    return undefined;
  }
}

/** A mismatch description, or undefined when each fast reader agrees with the full parser or steps aside. */
function disagreement(text: string): string | undefined {
  const full = fullRead(text);
  for (const [name, read] of [
    ['YAML', readYamlText],
    ['JSON', readJsonText],
  ] as const) {
    const fast = read(text);
    if (!fast) continue;
    if (!full) return `the ${name} reader accepts a text the full parser refuses: ${JSON.stringify(text)}`;
    if (!isDeepStrictEqual(fast.value, full.value))
      return `the ${name} reader reads ${JSON.stringify(text)} as ${JSON.stringify(fast.value)}, the full parser as ${JSON.stringify(full.value)}`;
  }
  return undefined;
}

async function filesUnder(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && pattern.test(e.name)).map((e) => path.join(e.parentPath, e.name));
}

const corpusFiles = [
  ...(await filesUnder('scenarios', /\.(ya?ml|json)$/)),
  ...(await filesUnder('bench/scenarios', /\.(ya?ml|json)$/)),
  ...(await filesUnder('test/scenario/broken', /\.(ya?ml|json)$/)),
];
const corpus = await Promise.all(corpusFiles.map((f) => readFile(f, 'utf8')));

t.test('every shipped scenario reads the same through the fast YAML reader', async (t) => {
  const shipped = await filesUnder('scenarios', /\.ya?ml$/);
  t.ok(shipped.length >= 10);
  let readFast = 0;
  for (const file of shipped) {
    const text = await readFile(file, 'utf8');
    if (readYamlText(text)) readFast++;
    t.equal(disagreement(text), undefined, path.basename(file));
  }
  // Today every one is plain; a scenario that needs the full parser may join, but not most of them.
  t.ok(readFast > shipped.length / 2, `${readFast} of ${shipped.length} read by the fast reader`);
});

t.test('the bench rule files stay on the fast path', async (t) => {
  const rules1000 = await readFile(path.join(root, 'bench/scenarios/rules-1000.yaml'), 'utf8');
  const fast = readYamlText(rules1000);
  t.ok(fast);
  t.equal((fast?.value as { rules: unknown[] }).rules.length, 1000);
  t.same(fast?.value, fullRead(rules1000)?.value);
});

t.test('the broken scenarios: the fast readers never accept what the full parser refuses', async (t) => {
  for (const [i, text] of corpus.entries()) t.equal(disagreement(text), undefined, path.relative(root, corpusFiles[i]!));
});

/** A test name in ASCII (a raw line separator would break the test output). */
const printable = (text: string) => JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const EDGE_CASES = [
  // scalars of the core schema
  'a: 0o17\nb: 0x1F\nc: +5\nd: -0\ne: 1e3\nf: .5\ng: 5.\nh: .inf\ni: -.Inf\nj: .NaN\nk: 012\nl: 1_000\nm: 0b11\nn: 2001-01-01\no: ~\np: Yes\nq: NULL\nr: True\ns: FALSE\nt: 0x\nu: 1e\nv: -1.5E-3\n',
  'a: 12345678901234567890\nb: 0.1\nc: 1.0\nd: 100.\ne: +.5\nf: -.5e+2\n',
  'a: "1"\nb: \'true\'\nc: "null"\nd: ""\ne: \'\'\n',
  // plain scalars with indicators inside
  'a: x, y\n',
  'a: x]\n',
  'a: x{y}\n',
  'a: ---\n',
  'a: b#c\n',
  'a: b # comment\n',
  'a: http://x:80/y\n',
  "a: don't\n",
  'a: say "hi"\n',
  'a: a!b&c*d|e>f%g@h`i\n',
  'a: -x\n',
  'a: -5\n',
  'a: a\\d+\n',
  'a: x :y\n',
  'a: x:\n',
  'a: x: y\n',
  'a: - x\n',
  'a: -\n',
  'a: ?x\n',
  'a: :x\n',
  'a: &x 1\nb: *x\n',
  'a: !!str 1\n',
  'a: |\n  text\n',
  'a: >-\n  text\n',
  'a: @x\n',
  'a: %x\n',
  'a: `x`\n',
  // keys
  'a : b\n',
  '"a" : b\n',
  '"a":b\n',
  "'a': b\n",
  '"a b": c\n',
  'a b: c\n',
  'a#b: c\n',
  'a:b: c\n',
  'a:: b\n',
  '1: a\n',
  'null: a\n',
  'true: a\n',
  '~: a\n',
  '<<: a\n',
  '__proto__: 1\n',
  'constructor: 1\ntoString: 2\n',
  '"__proto__": { a: 1 }\n',
  'a: 1\na: 2\n',
  'a: 1\n"a": 2\n',
  'x:\n  a: 1\n  b: 2\n  a: 3\n',
  'x: { a: 1, a: 2 }\n',
  "x: { a: 1, 'a': 2 }\n",
  `${'k'.repeat(1100)}: 1\n`,
  `"${'k'.repeat(1100)}": 1\n`,
  // quoted scalars and escapes
  'a: "x\\ny\\t\\"z\\\\ \\/ \\0 \\b \\f \\r"\n',
  'a: "\\u00e9\\u263A"\n',
  'a: "\\ud83d\\ude00"\n',
  'a: "\\x41"\n',
  'a: "\\U0001F600"\n',
  'a: "\\ "\n',
  'a: "\\q"\n',
  'a: "\\e\\a\\v\\N\\_\\L\\P"\n',
  "a: 'it''s'\n",
  "a: 'x\\n'\n",
  'a: "x\n  y"\n',
  "a: 'x\n  y'\n",
  'a: "x"y\n',
  'a: "x" #c\n',
  'a: "x"#c\n',
  'a: "x" y\n',
  // flow collections
  'a: [1, 2, ]\n',
  'a: [1, , 2]\n',
  'a: []\nb: {}\n',
  'a: [ ]\nb: { }\n',
  'a: {x: 1}\n',
  'a: {x:1}\n',
  'a: { x: }\n',
  'a: { x }\n',
  'a: [x: 1]\n',
  'a: [1, [2, [3]], {b: [4]}]\n',
  'a: [-1, -x, -]\n',
  'a: ["x", \'y\', "a,b"]\n',
  'a: [a b, c d]\n',
  'a: [1, 2] # c\n',
  'a: [1, 2]#c\n',
  'a: [1, 2] x\n',
  'a: [1,\n  2]\n',
  'a: {b: c}: d\n',
  '[a]: b\n',
  '{a: b}: c\n',
  'a: [x #c]\n',
  'a: {"b":1}\n',
  'a: {"b": 1}\n',
  'a: { b: { c: [ "d" ] } }\n',
  'a: [.inf, 0x1F, ~, null, true]\n',
  // block structure
  'a:\n- 1\n- 2\nb: 3\n',
  'a:\n  - 1\n  - 2\n',
  '- a\n- b\n',
  '-\n  a: 1\n- b\n',
  '- - a\n  - b\n',
  '- a: 1\n  b: 2\n- c: 3\n',
  '- a:\n  - x\n',
  '- a:\n- b\n',
  '-   a: 1\n    b: 2\n',
  '- a: 1\n   b: 2\n',
  '- a: 1\n b: 2\n',
  'a: x\n  b\n',
  'a: x\n  b: c\n',
  'a:\n  b: 1\n c: 2\n',
  'a:\n    b: 1\n  c: 2\n',
  'a:\n  b\n',
  'a:\n  # only a comment\nb: 1\n',
  'a: # c\n  b: 1\n',
  '- # c\n  a: 1\n',
  '  a: 1\n  b: 2\n',
  '  a: 1\nb: 2\n',
  'a: 1\n- b\n',
  '- a\nb: 1\n',
  'a: 1\n---\nb: 2\n',
  '--- \na: 1\n',
  'a: 1\n...\n',
  '%YAML 1.2\n---\na: 1\n',
  '',
  '\n\n',
  '# only\n',
  'a',
  'a\nb\n',
  '"a"\n',
  '[1, 2]\n',
  '{a: 1}\n',
  '- x\n  - y\n',
  // characters the readers leave alone
  'a: b\tc\n',
  'a: b\r\nc: d\r\n',
  '\uFEFFa: 1\n',
  'a: b\u0085c\n',
  'a: b\u2028c\n',
  'a: b\u00A0\n',
  'a: \u00A0b\n',
  'a: caf\u00e9 \u263A \ud83d\ude00\n',
  'a: b\u0007\n',
  'a: "\ud800"\n',
  // JSON
  '{"a": 1, "b": [true, null, "x\\u0041\\n", -0, 1.5e3, 12345678901234567890]}',
  '{\n"a": 1\n}',
  '{"a": 1, "a": 2}',
  '{"a": {"b": 1, "b": 1}}',
  '{"a\\"": 1, "a\\\\": 2}',
  '{"a": "x:y # z"}',
  '[1, 2, {"a": {}}]',
  '{"a": 1}\n# comment\n',
  '{"a": 1} x',
  '{"a": 1,}',
  '{"__proto__": {"x": 1}}',
  ' \n {"a": [ ]}\n',
  '{"a":\t1}',
  '{"a": "\t"}',
  '{\n\t"a": [\n\t\t1\n\t]\n}',
  '{\r\n  "a": 1\r\n}',
  '{\r  "a": 1\r}',
  '{\r"a": 1}',
  '{"a": "x\ry"}',
  `{"${'k'.repeat(1100)}": 1}`,
  '{"a": "\\ud800"}',
  '{"a": 1e400}',
  '{"":1}',
];

t.test('hand-picked edge cases: each fast reader agrees or steps aside', async (t) => {
  for (const text of EDGE_CASES) t.equal(disagreement(text), undefined, printable(text));
});

t.test('the readers stay on the fast path for the forms scenario files use', async (t) => {
  const yaml =
    'scenario: x # name\nrules:\n  - id: a\n    match: { skill: inventory.search, headers: { x-lane: "1" } }\n    error: INTERNAL_ERROR\n  - id: b\n    match:\n      body: [{ pointer: /params/x, equals: -5 }]\n    delay: { ms: 100, jitter_ms: 20 }\n    description: it\'s the dealer\'s reply, slowed\n\n  # a comment\n  - id: c\n    when:\n      probability: 0.5\n';
  t.ok(readYamlText(yaml));
  t.equal(disagreement(yaml), undefined);
  t.ok(readJsonText(JSON.stringify({ rules: [{ id: 'a', error: 'INTERNAL_ERROR' }] }, null, 2)));
  t.ok(readJsonText(JSON.stringify({ rules: [{ id: 'a', error: 'INTERNAL_ERROR' }] }, null, '\t')), 'tab-indented JSON');
  t.ok(readJsonText('{\r\n  "rules": []\r\n}\r\n'), 'JSON with CRLF line breaks');
});

const SIGNIFICANT = [
  '\r',
  '\r\n',
  ' ',
  ' ',
  '  ',
  '\n',
  ':',
  ': ',
  '-',
  '- ',
  '#',
  ' #',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  '&',
  '*',
  '!',
  '|',
  '>',
  '?',
  'a',
  '0',
  '.',
  '\\',
  '~',
  '\t',
  'e',
  '1',
];

function mutate(text: string, next: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const at = Math.floor(next() * (text.length + 1));
  const lines = text.split('\n');
  const line = Math.floor(next() * lines.length);
  switch (Math.floor(next() * 6)) {
    case 0:
      return text.slice(0, at) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + pick(SIGNIFICANT) + text.slice(at);
    case 2:
      return text.slice(0, at) + pick(SIGNIFICANT) + text.slice(at + 1);
    case 3: // a line written twice (a duplicate key, or a second item)
      lines.splice(line, 0, lines[line]!);
      return lines.join('\n');
    case 4: // a line indented one or two spaces more or less
      lines[line] = next() < 0.5 ? pick([' ', '  ']) + lines[line] : lines[line]!.replace(/^ {1,2}/, '');
      return lines.join('\n');
    default: {
      const other = Math.floor(next() * lines.length);
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      return lines.join('\n');
    }
  }
}

t.test('seeded mutations of real files: the fast readers agree with the full parser or step aside', async (t) => {
  // JSON as people write it: indented with spaces or tabs, with LF, CRLF or (refused by YAML) CR line breaks.
  const asJson = corpus
    .filter((text) => readYamlText(text))
    .slice(0, 4)
    .map((text) => fullRead(text)?.value);
  const jsonCorpus = corpus
    .filter((text) => readJsonText(text))
    .concat(
      asJson.flatMap((value) => [
        JSON.stringify(value, null, 2),
        JSON.stringify(value, null, '\t'),
        JSON.stringify(value, null, 2).replace(/\n/g, '\r\n'),
        JSON.stringify(value, null, 2).replace(/\n/g, '\r'),
      ]),
    );
  const sources = corpus.filter((text) => text.length < 20_000).concat(jsonCorpus);
  // Seeded, so a failing mutation can be reproduced.
  const seeded = new SeededRandom(20_261_201);
  const next = () => seeded.next();
  let checked = 0;
  let readFast = 0;
  const failures: string[] = [];
  for (const source of sources) {
    for (let i = 0; i < 60; i++) {
      let text = source;
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) text = mutate(text, next);
      checked++;
      if (readYamlText(text) || readJsonText(text)) readFast++;
      const problem = disagreement(text);
      if (problem && failures.length < 5) failures.push(problem);
    }
  }
  t.same(failures, [], `${checked} mutated texts`);
  // The mutations must reach the fast path often, or they would prove nothing about it.
  t.ok(readFast > checked / 5, `${readFast} of ${checked} mutated texts were read by a fast reader`);
  t.comment(`${readFast} of ${checked} mutated texts were read by a fast reader`);
});
