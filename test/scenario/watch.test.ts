import t from 'tap';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { watchScenarioFile } from '../../src/scenario/watch.js';
import { formatProblem, type Scenario, type ScenarioProblem } from '../../src/scenario/load.js';
import { tempDir } from '../helpers/temp-dir.js';

type WatchEvent = { kind: 'valid'; scenario: Scenario } | { kind: 'invalid'; problems: ScenarioProblem[] };

/** Collects watcher callbacks and hands them out in order, waiting a bounded time for each. */
function eventQueue() {
  const events: WatchEvent[] = [];
  const waiters: Array<(e: WatchEvent) => void> = [];
  const push = (e: WatchEvent) => {
    const waiter = waiters.shift();
    if (waiter) waiter(e);
    else events.push(e);
  };
  const next = (timeoutMs = 5000) =>
    new Promise<WatchEvent>((resolve, reject) => {
      const queued = events.shift();
      if (queued) return resolve(queued);
      const timer = setTimeout(() => reject(new Error(`no watch event within ${timeoutMs} ms`)), timeoutMs);
      waiters.push((e) => {
        clearTimeout(timer);
        resolve(e);
      });
    });
  return { push, next, pending: () => events.length };
}

t.test('a changed file is reloaded: valid replaces, invalid reports every problem', async (t) => {
  const dir = tempDir(t, 'aap-chaos-watch-');
  const file = path.join(dir, 'live.yaml');
  await writeFile(file, 'scenario: live\nrules: []\n');

  const queue = eventQueue();
  const watcher = watchScenarioFile(
    file,
    (scenario) => queue.push({ kind: 'valid', scenario }),
    (problems) => queue.push({ kind: 'invalid', problems }),
    { debounceMs: 30 },
  );
  t.teardown(() => watcher.close());

  await writeFile(file, 'scenario: live\nrules:\n  - id: slow\n    delay: { ms: 100 }\n');
  const valid = await queue.next();
  t.equal(valid.kind, 'valid');
  if (valid.kind === 'valid')
    t.same(
      valid.scenario.rules?.map((r) => r.id),
      ['slow'],
    );

  await writeFile(file, 'scenario: live\nrules:\n  - id: slow\n    delay: { ms: -1 }\n    colour: red\n');
  const invalid = await queue.next();
  t.equal(invalid.kind, 'invalid');
  if (invalid.kind === 'invalid')
    t.same(invalid.problems.map(formatProblem), [`${file}:4:18  /rules/0/delay/ms  must be >= 0`, `${file}:5:5  /rules/0/colour  unknown key "colour"`]);

  // Editors save by writing a temporary file and renaming it over the original.
  const temp = path.join(dir, '.live.yaml.swp');
  await writeFile(temp, 'scenario: renamed\nrules: []\n');
  await rename(temp, file);
  const renamed = await queue.next();
  t.equal(renamed.kind, 'valid');
  if (renamed.kind === 'valid') t.equal(renamed.scenario.scenario, 'renamed');
});

t.test('changes to other files in the folder are ignored, and close() stops the watch', async (t) => {
  const dir = tempDir(t, 'aap-chaos-watch-');
  const file = path.join(dir, 'live.yaml');
  await writeFile(file, 'rules: []\n');
  const queue = eventQueue();
  const watcher = watchScenarioFile(
    file,
    (scenario) => queue.push({ kind: 'valid', scenario }),
    (problems) => queue.push({ kind: 'invalid', problems }),
    {
      debounceMs: 30,
    },
  );

  await writeFile(path.join(dir, 'other.yaml'), 'not: [valid\n');
  await writeFile(file, 'scenario: mine\nrules: []\n');
  const first = await queue.next();
  t.equal(first.kind, 'valid', 'only the watched file is loaded');
  if (first.kind === 'valid') t.equal(first.scenario.scenario, 'mine');

  watcher.close();
  await writeFile(file, 'scenario: after-close\nrules: []\n');
  await t.rejects(queue.next(300), /no watch event/, 'no event after close()');
});
