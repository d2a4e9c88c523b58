// A seeded fuzz of scenario texts around the nesting limit: quotes that open or only look as if
// they do (an apostrophe in a plain scalar, '' and \" escapes, a quote right after a colon),
// brackets inside and outside strings, comments, lone carriage returns and block indicators, at
// depths just under, at and far past the limit. For every text: loading never throws; the scan
// that lets the fast readers in never says "shallow" for text the YAML parser nests deeper; and a
// text is refused for its depth exactly when it is too deep. The seed is printed;
// AAP_CHAOS_FUZZ_SEED replays a run.
import t from 'tap';
import { SeededRandom } from '../../src/common/random.js';
import { MAX_NESTING_DEPTH, mayNestTooDeep } from '../../src/scenario/limits.js';
import { loadScenarioText } from '../../src/scenario/load.js';
import { parseYamlDocument } from '../../src/scenario/yaml-document.js';

const SEED = Number(process.env.AAP_CHAOS_FUZZ_SEED ?? Date.now() % 1_000_000);
const CASES = Number(process.env.AAP_CHAOS_FUZZ_CASES ?? 1_000);

/** Pieces that change what a scanner believes is quoted, commented or nested. */
const NOISE = [
  "it's",
  " 'a",
  "'b'",
  "''",
  "'''",
  ' "x"',
  '"\\""',
  '"\\\\"',
  '\\"',
  '":"',
  ':"',
  '"a":"]]]"',
  "':'",
  ' #',
  '# [[',
  '#',
  '\r',
  '\r\n',
  ', ',
  ': ',
  ']',
  '}',
  ']]]]',
  '"]]]]"',
  "']]]]'",
  '"[[["',
  "'{{{'",
  '"]]]\\n" ',
  "'x\\'",
  '[',
  '{',
  ' - ',
  '? ',
  'a: b',
  '|',
  '>',
  '&a ',
  '*a',
  '!t ',
  '\t',
];

function randomText(r: SeededRandom): string {
  const depth = r.pick([r.int(1, MAX_NESTING_DEPTH - 4), r.int(MAX_NESTING_DEPTH - 4, MAX_NESTING_DEPTH + 4), r.int(100, 600)]);
  const parts: string[] = [r.pick(['rules: []\n', '{"rules": [], "x": ', 'rules:\n  - id: a\n    error: INTERNAL_ERROR\n'])];
  if (parts[0]!.startsWith('rules:')) parts.push(r.pick(['x: ', 'description: ', 'report: ', '  - ']));
  const open: string[] = [];
  for (let i = 0; i < depth; i++) {
    if (r.next() < 0.15) parts.push(r.pick(NOISE));
    const bracket = r.pick(['[', '{', '[', '- ']);
    if (bracket === '- ') parts.push(`\n${' '.repeat(Math.min(i, 200))}- `);
    else {
      parts.push(bracket === '{' ? '{ k: ' : '[');
      open.push(bracket === '{' ? '}' : ']');
    }
  }
  parts.push(r.pick(['x', '"y"', "'z'", '']));
  while (open.length > 0) {
    if (r.next() < 0.1) parts.push(r.pick(NOISE));
    parts.push(open.pop()!);
  }
  parts.push(r.pick(['\n', '}\n', ' # end\n', "'\n"]));
  return parts.join('');
}

t.test(`scenario texts around the nesting limit (seed ${SEED}, ${CASES} cases)`, async (t) => {
  t.comment(`replay with AAP_CHAOS_FUZZ_SEED=${SEED}`);
  const r = new SeededRandom(SEED);
  const unsound: string[] = [];
  const wrong: string[] = [];
  let deep = 0;
  let gray = 0;
  for (let i = 0; i < CASES; i++) {
    const text = randomText(r);
    const parsed = parseYamlDocument(text);
    const tooDeep = 'tooDeepAt' in parsed;
    if (tooDeep) deep++;
    const scanned = mayNestTooDeep(text);
    if (scanned && !tooDeep) gray++;
    if (!scanned && tooDeep) unsound.push(`case ${i}: ${JSON.stringify(text.slice(0, 160))}`);
    let result;
    try {
      result = loadScenarioText(text, 'fuzz.yaml');
    } catch (e) {
      wrong.push(`case ${i} threw ${(e as Error).message}: ${JSON.stringify(text.slice(0, 160))}`);
      continue;
    }
    const refusedForDepth = !result.ok && result.problems.some((p) => p.message.includes('levels deep'));
    if (refusedForDepth !== tooDeep)
      wrong.push(`case ${i}: depth refusal ${refusedForDepth}, parser depth past the limit ${tooDeep}: ${JSON.stringify(text.slice(0, 160))}`);
  }
  t.comment(`${deep} texts past the limit, ${gray} that only the scan could not clear`);
  t.ok(deep > CASES / 10 && deep < CASES - CASES / 10, 'the cases fall on both sides of the limit');
  t.same(unsound, [], 'the scan never clears a text the YAML parser nests past the limit');
  t.same(wrong, [], 'loading never throws, and refuses for depth exactly the texts past the limit');
});
