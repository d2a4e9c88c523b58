// `exam --shrink` writes each reproducer inside repro/, whatever the scenario calls itself: a
// scenario named `../../pwned` (its own `scenario:` text, which names the file) once wrote its
// reproducer two folders up. The name is confined to one plain file name under repro/.
import t from 'tap';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exam, type ExamJson } from '../helpers/exam.js';
import type { Reproducer } from '../../src/exam/shrink-run.js';
import { tempDir } from '../helpers/temp-dir.js';

t.setTimeout(240_000);

/** A buyer that asks for the same sold vehicle twice: the resend of a non-retryable request FAILs. */
const BUYER = `
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-1', role: 'ROLE_USER',
  parts: [{ data: { type: 'inventory.vehicle.request', vin: '3FMUKX5S6SF000001' } }] } } });
for (let i = 0; i < 2; i++)
  await fetch(process.env.AAP_DEALER_URL + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body }).then((r) => r.text());
`;

t.test('a scenario named ../../pwned: the reproducer is written inside repro/, nowhere else', async (t) => {
  const root = tempDir(t, 'aap-chaos-shrink-names-');
  const cwd = path.join(root, 'a', 'b', 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(
    path.join(cwd, 'hostile.yaml'),
    'scenario: ../../pwned\nrules:\n  - id: sold\n    match: { skill: inventory.vehicle }\n    error: VEHICLE_UNAVAILABLE\n',
  );
  const run = await exam(
    [
      '--scenarios',
      'hostile.yaml',
      '--shrink',
      '--shrink-budget',
      '3',
      '--allow-incomplete',
      '--json',
      '--',
      process.execPath,
      '--input-type=module',
      '-e',
      BUYER,
    ],
    {},
    cwd,
  );
  t.equal(run.code, 1, run.err);
  const card = JSON.parse(run.out) as ExamJson & { reproducers: Reproducer[] };
  const written = card.reproducers.filter((r) => r.file !== undefined);
  t.ok(written.length > 0, 'at least one reproducer was written');
  for (const r of written) {
    t.equal(path.dirname(r.file!), 'repro', `${r.file} is directly under repro/`);
    t.match(path.basename(r.file!), /^[A-Za-z0-9][A-Za-z0-9._-]*\.yaml$/, 'a plain file name');
  }
  t.same(
    readdirSync(root, { recursive: true }).filter((f) => String(f).includes('pwned') && !String(f).startsWith(path.join('a', 'b', 'work', 'repro'))),
    [],
    'no file outside repro/ carries the name',
  );
  t.same(readdirSync(path.join(cwd, 'repro')).sort(), written.map((r) => path.basename(r.file!)).sort());
});
