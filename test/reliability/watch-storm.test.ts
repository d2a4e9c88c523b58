// A --watch reload storm: the scenario file is rewritten 100 times, valid and invalid, while
// traffic flows. No request fails, and no request is decided by two scenarios at once.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRuntime } from '../../src/runtime.js';
import { watchScenarioFile } from '../../src/scenario/watch.js';
import { request, skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Generation `n`: two rules that both stamp the reply with `n`. */
const generation = (n: number) =>
  `scenario: gen-${n}\nrules:\n  - { id: g${n}-a, patch: [{ op: add, path: /result/gen_a, value: ${n} }] }\n  - { id: g${n}-b, patch: [{ op: add, path: /result/gen_b, value: ${n} }] }\n`;

t.test('100 rewrites while traffic flows: no failure, never two scenarios in one request', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-storm-'), 'storm.yaml');
  writeFileSync(file, generation(0));
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, scenario: file, profile: '1.3' });
  t.teardown(() => rt.close());
  let reloads = 0;
  let rejected = 0;
  const watcher = watchScenarioFile(
    file,
    (s) => void rt.use(s).then(() => reloads++),
    () => rejected++,
    { debounceMs: 2 },
  );
  t.teardown(() => watcher.close());

  let storming = true;
  const failures: string[] = [];
  const mixed: string[] = [];
  let answered = 0;
  const traffic = Array.from({ length: 4 }, async () => {
    while (storming) {
      const reply = await request(`${rt.url}/a2a`, { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } }).catch(
        (e: Error) => {
          failures.push(e.message);
          return undefined;
        },
      );
      if (!reply) continue;
      answered++;
      if (reply.status !== 200) failures.push(`HTTP ${reply.status}`);
      const result = JSON.parse(reply.body.toString()).result ?? {};
      if (result.gen_a !== result.gen_b) mixed.push(`gen_a ${result.gen_a}, gen_b ${result.gen_b}`);
    }
  });
  for (let i = 1; i <= 100; i++) {
    writeFileSync(file, i % 3 === 0 ? `rules: [ { id: broken-${i}, error: NOPE ` : generation(i));
    // The storm's pace: a few ms apart, faster than most reloads complete.
    await new Promise((r) => setTimeout(r, 5 + (i % 7)));
  }
  writeFileSync(file, generation(101));
  const deadline = Date.now() + 20_000;
  while (rt.engine?.name !== 'gen-101' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  storming = false;
  await Promise.all(traffic);

  t.equal(rt.engine?.name, 'gen-101', 'the last valid file is the one running');
  t.same(failures, [], `no request failed (${answered} answered, ${reloads} reloads, ${rejected} rejected files)`);
  t.same(mixed, [], 'every reply was stamped by one scenario');
  const split = rt.journal.all().filter((e) => new Set(e.fired.map((id) => id.split('-')[0])).size > 1);
  t.equal(split.length, 0, 'no journal line names rules of two scenarios');
  t.ok(answered > 20, 'traffic flowed during the storm');
});
