// Fault shrinking's pieces: ddmin finds the one firing that matters within its budget, and each
// firing becomes a rule pinned to the nth request of its skill that the scenario schema accepts.
import t from 'tap';
import { ddmin, firingsOf, pinnedScenario, reproYaml, type Firing } from '../../src/exam/shrink.js';
import { formatProblem, loadScenarioText } from '../../src/scenario/load.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import type { Rule } from '../../src/scenario/types.generated.js';

const rule: Rule = { id: 'throttle', match: { skill: 'inventory.search' }, when: { probability: 0.5 }, error: 'RATE_LIMITED', retry_after_ms: 500 };
const entry = (id: string, t: number, skill: string, fired: boolean) =>
  ({ id, t, skill, faults: fired ? [{ rule: 'throttle', effect: 'error' }] : undefined }) as unknown as JournalEntry;

t.test('twelve firings shrink to the third, which alone fails, within the budget', async (t) => {
  const firings: Firing[] = Array.from({ length: 12 }, (_, i) => ({ rule, skill: 'inventory.search', nth: i + 1, entry: `e${i + 1}` }));
  const tried: number[] = [];
  const result = await ddmin(firings, async (subset) => (tried.push(subset.length), subset.some((f) => f.nth === 3)), 30);
  t.same(
    result.minimal.map((f) => f.nth),
    [3],
  );
  t.ok(result.oneMinimal);
  t.equal(result.runs, tried.length);
  t.ok(result.runs <= 30, `${result.runs} trials`);
  const short = await ddmin(firings, async (subset) => subset.some((f) => f.nth === 3), 2);
  t.equal(short.runs, 2, 'the budget is respected');
  t.notOk(short.oneMinimal, 'and says it stopped early');
  t.ok(
    short.minimal.some((f) => f.nth === 3),
    'what it returns still fails',
  );
});

t.test('firings are numbered per skill in arrival order and pinned as a valid scenario', async (t) => {
  const journal = [entry('c', 30, 'inventory.search', true), entry('a', 10, 'inventory.search', false), entry('b', 20, 'inventory.vehicle', false)];
  const firings = firingsOf(journal, [rule]);
  t.same(
    firings.map((f) => [f.entry, f.nth]),
    [['c', 2]],
  );
  const scenario = pinnedScenario({ scenario: 'storm', seed: 9, rules: [rule] }, 'storm-retry-after-seed9', 9, firings);
  t.same(scenario.rules, [
    { id: 'throttle-inventory.search-2', match: { skill: 'inventory.search' }, when: { after: 1, times: 1 }, error: 'RATE_LIMITED', retry_after_ms: 500 },
  ]);
  const text = reproYaml(scenario, 'retry-after', 'AAP-BUYER-001', 'storm');
  t.match(text, /^# Minimal reproducer: retry-after \(AAP-BUYER-001\)/);
  const loaded = loadScenarioText(text, 'repro.yaml');
  t.ok(loaded.ok, loaded.ok ? 'the reproducer loads' : loaded.problems.map(formatProblem).join('\n'));
});
