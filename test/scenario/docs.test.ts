// The examples in docs/scenarios.md are checked against the schema, so the docs cannot drift
// from what the loader accepts.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';
import { A2A_ERROR_NAMES, AAP_CODES } from '../../src/protocol/codes.js';

const doc = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m, i) => ({ text: m[1]!, index: i + 1 }));

t.ok(blocks.length >= 15, `the docs have YAML examples (${blocks.length})`);

let whole = 0;
for (const { text, index } of blocks) {
  const value: unknown = parse(text);
  // A block that starts at `rules:` is a fragment of a scenario; it is checked as one.
  const isScenario = typeof value === 'object' && value !== null && !Array.isArray(value) && 'rules' in value;
  if (!isScenario) continue;
  whole += 1;
  t.test(`docs/scenarios.md YAML example ${index}`, async (t) => {
    const result = loadScenarioText(text, `docs/scenarios.md example ${index}`);
    t.ok(result.ok, result.ok ? 'validates' : result.problems.map(formatProblem).join('\n'));
  });
}
t.ok(whole >= 15, `most examples are whole scenarios and were validated (${whole})`);

t.test('the docs name every AAP code and A2A error name', async (t) => {
  for (const code of AAP_CODES) t.match(doc, code);
  for (const name of A2A_ERROR_NAMES) t.match(doc, name);
});
