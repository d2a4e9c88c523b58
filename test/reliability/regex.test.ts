// User patterns run on a linear-time engine: a pattern that backtracks catastrophically in a
// backtracking engine answers at once, and what RE2 cannot run is refused at validation.
import t from 'tap';
import { harness } from '../helpers/chaos-harness.js';
import { loadScenarioText, formatProblem } from '../../src/scenario/load.js';
import { MAX_REGEX_INPUT_CHARS } from '../../src/scenario/regex.js';

const EVIL = `rules:
  - id: evil-header
    match: { headers: { x-buyer: { regex: "(a+)+$" } } }
    error: INTERNAL_ERROR
  - id: evil-body
    match: { body: [{ pointer: /params/message/parts/0/data/q, regex: "(a|aa)+$" }] }
    error: RATE_LIMITED
`;

t.test('(a+)+$ against 40 a and a "!" answers promptly, header and body alike', async (t) => {
  const h = await harness(t, EVIL);
  const hostile = 'a'.repeat(40) + '!';
  const started = Date.now();
  const reply = await h.call('inventory.search', { q: hostile }, { headers: { 'x-buyer': hostile } });
  t.equal(reply.status, 200);
  t.notOk(h.json(reply).error, 'neither pattern matches, so the dealer answers');
  t.ok(Date.now() - started < 2_000, `answered in ${Date.now() - started} ms`);
  const hit = h.json(await h.call('inventory.search', {}, { headers: { 'x-buyer': 'aaaa' } }));
  t.equal(hit.error?.code, -32603, 'a value the pattern matches still fires the rule');
});

t.test('a huge value is matched on its first characters only, still promptly', async (t) => {
  const h = await harness(t, EVIL);
  const started = Date.now();
  const reply = await h.call('inventory.search', { q: 'a'.repeat(MAX_REGEX_INPUT_CHARS * 8) + '!' });
  t.equal(h.json(reply).error?.code, -32002, 'the first 64 Ki characters are all a, so the bounded match succeeds');
  t.ok(Date.now() - started < 5_000);
});

t.test('lookaround and backreferences are refused at validation with the reason', async (t) => {
  const result = loadScenarioText(`rules:\n  - id: x\n    match: { headers: { x-buyer: { regex: "(?=team)" } } }\n    error: INTERNAL_ERROR\n`, 's.yaml');
  t.equal(result.ok, false);
  if (result.ok) return;
  const line = formatProblem(result.problems[0]!);
  t.match(line, /^s\.yaml:3:\d+ {2}\/rules\/0\/match\/headers\/x-buyer\/regex {2}invalid regular expression: .*RE2 syntax/);
});
