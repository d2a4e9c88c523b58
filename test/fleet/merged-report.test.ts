// One buyer whose requests were spread over two replicas is graded as one from the two journals:
// `aap-chaos report a.jsonl b.jsonl` merges them by time (ULIDs sort) and sees the early retry
// that neither journal shows alone.
import t from 'tap';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { redisMissing } from '../helpers/debian-services.js';
import { search, startFleet } from '../helpers/fleet.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runReportCommand } from '../../src/report/command.js';

t.test('a merged report grades one buyer across two replicas', { skip: redisMissing() }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-fleet-journal-');
  const fleet = await startFleet(
    t,
    2,
    {
      scenario: 'fleet-report',
      rules: [{ id: 'one-per-10s', match: { skill: 'inventory.search' }, key: 'header:x-buyer', rate_limit: { limit: 1, window_ms: 10_000 } }],
    },
    { journalDir: dir },
  );
  const [a, b] = fleet.replicas as [(typeof fleet.replicas)[0], (typeof fleet.replicas)[0]];
  const buyer = { 'x-buyer': 'buyer-1' };
  t.equal((await search(a.url, 1, buyer)).code, undefined);
  t.equal((await search(b.url, 2, buyer)).code, 'RATE_LIMITED', 'the second request, on the other replica, is limited');
  t.equal((await search(a.url, 3, buyer)).code, 'RATE_LIMITED', 'the buyer retries at once, on the first replica');
  await a.close();
  await b.close();
  const files = [join(dir, 'r1.jsonl'), join(dir, 'r2.jsonl')];

  const merged = await runReportCommand(files, { json: true });
  const report = JSON.parse(merged.output);
  t.equal(report.clients.length, 1, 'one buyer: the replicas share the client-key secret');
  const retry = report.checks.find((c: { check: string }) => c.check === 'retry-after');
  t.equal(retry.verdict, 'FAIL', 'the early retry across replicas is caught');
  t.equal(merged.exitCode, 1);

  for (const file of files) {
    const alone = JSON.parse((await runReportCommand(file, { json: true })).output);
    t.not(alone.checks.find((c: { check: string }) => c.check === 'retry-after').verdict, 'FAIL', `${file} alone does not show it`);
  }

  const cli = spawnSync(process.execPath, ['bin/aap-chaos.js', 'report', ...files], { encoding: 'utf8', timeout: 30_000 });
  t.equal(cli.status, 1, `the command line merges them too: ${cli.stdout}${cli.stderr}`);
  t.match(cli.stdout, /retry-after/);
});
