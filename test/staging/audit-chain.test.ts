// `aap-chaos audit verify`: the chain is checked across rotated (and gzip-compressed) files and
// against its head (FILE.head), so what links but is wrong still shows: a cut tail, an entry
// appended with a forged but consistent hash, an empty file, a file missing between two others.
// A log that starts again continues its chain; files and heads are created 0600.
import t from 'tap';
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AuditLog, chainEntry, type AuditEntry, type AuditFacts } from '../../src/staging/audit.js';
import { runAuditVerify } from '../../src/staging/audit-verify-command.js';
import { cli } from '../helpers/cli-run.js';
import { tempDir } from '../helpers/temp-dir.js';

const facts = (n: number): AuditFacts => ({
  action: 'rule-switch',
  target: `rule:r${n}`,
  scenario_before: null,
  scenario_after: null,
  remote: '127.0.0.1',
  token: null,
  detail: `switch ${n} ${'·'.repeat(40)}`,
});

/** A log written through AuditLog: `count` actions after its first entry. */
async function writeLog(file: string, count: number, rotation = {}): Promise<AuditLog> {
  const log = new AuditLog({ file, rotation, replica: 'r1' });
  await log.open();
  for (let n = 1; n <= count; n++) await log.record(facts(n));
  await log.close();
  return log;
}

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');

t.test('an intact log verifies, its tail confirmed by its head; the file and the head are 0600', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-audit-chain-'), 'audit.jsonl');
  await writeLog(file, 3);
  t.same(
    lines(file).map((l) => JSON.parse(l).action),
    ['file-start', 'rule-switch', 'rule-switch', 'rule-switch'],
  );
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(statSync(`${file}.head`).mode & 0o777, 0o600);
  const run = await runAuditVerify([file]);
  t.equal(run.exitCode, 0, run.output);
  t.match(run.output, /audit\.jsonl \(1 file, 4 entries, seq 1-4\): chain intact\n {2}tail confirmed by .*audit\.jsonl\.head \(seq 4\)/);
});

t.test('a log started again continues its chain', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-audit-chain-'), 'audit.jsonl');
  await writeLog(file, 2);
  await writeLog(file, 2);
  t.same(
    lines(file).map((l) => JSON.parse(l).seq),
    [1, 2, 3, 4, 5],
  );
  t.equal((await runAuditVerify([file])).exitCode, 0);
});

t.test('a cut tail is named: the head says where the chain ends', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-audit-chain-'), 'audit.jsonl');
  await writeLog(file, 3);
  const all = lines(file);
  writeFileSync(file, all.slice(0, -1).join('\n') + '\n');
  const run = await runAuditVerify([file]);
  t.equal(run.exitCode, 1);
  t.match(run.output, /the tail was cut: .*audit\.jsonl\.head says the chain ends at seq 4, the files end at seq 3 \(entry 4 is missing\)/);

  writeFileSync(file, all.join('\n').slice(0, -20));
  const midLine = await runAuditVerify([file]);
  t.equal(midLine.exitCode, 1);
  t.match(midLine.output, /audit\.jsonl:4: cut off: the last line has no end/);
});

t.test('an entry appended with a consistent, forged hash is caught by the head; one with a field added is named forged', async (t) => {
  const file = path.join(tempDir(t, 'aap-chaos-audit-chain-'), 'audit.jsonl');
  await writeLog(file, 2);
  const last = JSON.parse(lines(file).at(-1)!) as AuditEntry;
  const forged = chainEntry({ ...facts(9), action: 'lever-release' }, { ts: new Date().toISOString(), replica: 'r1', seq: last.seq + 1, prev: last.hash });
  appendFileSync(file, JSON.stringify(forged) + '\n');
  const run = await runAuditVerify([file]);
  t.equal(run.exitCode, 1);
  t.match(run.output, /entries after the head: .*says the chain ends at seq 3, but entries 4-4 follow it/);
  t.equal((await runAuditVerify([file], { noHead: true })).exitCode, 0, 'without its head, a consistent forgery links: that is what the head is for');

  const extra = { ...forged, seq: forged.seq, note: 'x' } as Record<string, unknown>;
  delete extra.hash;
  const withField = { ...extra, hash: (await import('node:crypto')).createHash('sha256').update(JSON.stringify(extra)).digest('hex') };
  writeFileSync(file, lines(file).slice(0, -1).join('\n') + '\n' + JSON.stringify(withField) + '\n');
  t.match((await runAuditVerify([file], { noHead: true })).output, /audit\.jsonl:4: not an entry as the proxy writes one .*forged/);
});

t.test('an empty file is refused; so is a log without its head unless --no-head', async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-chain-');
  const empty = path.join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const run = await runAuditVerify([empty], { noHead: true });
  t.equal(run.exitCode, 1);
  t.match(run.output, /empty\.jsonl: empty: the proxy begins every audit file with an entry/);

  const file = path.join(dir, 'audit.jsonl');
  await writeLog(file, 1);
  unlinkSync(`${file}.head`);
  const headless = await runAuditVerify([file]);
  t.equal(headless.exitCode, 1);
  t.match(headless.output, /no head \(.*audit\.jsonl\.head\): a cut tail or an entry added at the end cannot be told/);
  const links = await runAuditVerify([file], { noHead: true });
  t.equal(links.exitCode, 0);
  t.match(links.output, /tail not confirmed \(--no-head\)/);
});

t.test('rotated, compressed files: one chain across the boundaries; a missing file is named', async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-chain-');
  const file = path.join(dir, 'audit.jsonl');
  const log = await writeLog(file, 40, { maxBytes: 2048, keep: 50, compress: true });
  t.ok(log.rotations >= 4, `${log.rotations} rotations`);
  const names = readdirSync(dir).sort();
  t.ok(names.includes('audit.jsonl.1.gz') && names.includes('audit.jsonl.head'), names.join(' '));
  for (const name of names.filter((n) => !n.endsWith('.head'))) {
    t.equal(statSync(path.join(dir, name)).mode & 0o777, 0o600, `${name} is 0600`);
    if (name !== 'audit.jsonl') t.ok(name.endsWith('.gz'), `${name} is compressed`);
  }
  const all = names.filter((n) => !n.endsWith('.head')).map((n) => path.join(dir, n));
  const run = await runAuditVerify(all);
  t.equal(run.exitCode, 0, run.output);
  t.match(run.output, new RegExp(`audit\\.jsonl \\(${all.length} files, \\d+ entries, seq 1-\\d+\\): chain intact`));
  const fromDir = await runAuditVerify([dir]);
  t.equal(fromDir.exitCode, 0, 'a directory stands for the chains in it');

  const middle = all.filter((f) => f.endsWith('.2.gz'));
  const gap = await runAuditVerify(all.filter((f) => !middle.includes(f)));
  t.equal(gap.exitCode, 1);
  t.match(gap.output, /audit\.jsonl\.2 is missing: given are files before and after it/);
  t.match(
    gap.output,
    /audit\.jsonl\.1\.gz:1: the chain is broken before this line .*a file between .*audit\.jsonl\.3\.gz and .*audit\.jsonl\.1\.gz is missing/,
  );

  const noNewest = await runAuditVerify(all.filter((f) => f !== file));
  t.equal(noNewest.exitCode, 1);
  t.match(noNewest.output, /audit\.jsonl is missing: the newest file of the chain, where it ends, is not given/);
});

t.test('files rotated away: the oldest kept file starts at its file-start entry; its first lines removed is named', async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-chain-');
  const file = path.join(dir, 'audit.jsonl');
  await writeLog(file, 30, { maxBytes: 2048, keep: 2 });
  t.same(readdirSync(dir).sort(), ['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2', 'audit.jsonl.head']);
  const files = [`${file}.2`, `${file}.1`, file];
  const run = await runAuditVerify(files);
  t.equal(run.exitCode, 0, run.output);
  t.match(run.output, /starts at seq \d+ \(.*audit\.jsonl\.2:1\): the entries before it were in files rotated away/);

  const oldest = lines(`${file}.2`);
  writeFileSync(`${file}.2`, oldest.slice(1).join('\n') + '\n');
  const cut = await runAuditVerify(files);
  t.equal(cut.exitCode, 1);
  t.match(cut.output, /audit\.jsonl\.2:1: the chain does not start here .*the first lines were removed/);
});

t.test('the command line: several files, a directory, --head, --no-head; exit 2 for a file that cannot be read', async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-chain-');
  const file = path.join(dir, 'audit.jsonl');
  await writeLog(file, 2);
  const ok = await cli(['audit', 'verify', dir]);
  t.equal(ok.code, 0, ok.err);
  t.match(ok.out, /chain intact/);
  const elsewhere = path.join(dir, 'kept-elsewhere.head');
  writeFileSync(elsewhere, readFileSync(`${file}.head`));
  truncateSync(`${file}.head`, 0);
  t.equal((await cli(['audit', 'verify', file, '--head', elsewhere])).code, 0, 'a head kept elsewhere');
  t.equal((await cli(['audit', 'verify', file, '--no-head'])).code, 0);
  const missing = await cli(['audit', 'verify', path.join(dir, 'nope.jsonl')]);
  t.equal(missing.code, 2);
  t.match(missing.err, /^aap-chaos: audit verify: cannot read .*nope\.jsonl \(ENOENT\)\n$/);
});

t.test('a FIFO where a head or a rotated file should be is refused at once, never waited on', async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-chain-');
  const file = path.join(dir, 'audit.jsonl');
  await writeLog(file, 2);
  const head = readFileSync(`${file}.head`);
  unlinkSync(`${file}.head`);
  execFileSync('mkfifo', [`${file}.head`]);
  const atHead = await cli(['audit', 'verify', file]);
  t.equal(atHead.code, 2, atHead.err);
  t.match(atHead.err, /^aap-chaos: audit verify: cannot read the head .*audit\.jsonl\.head: is a FIFO \(named pipe\), not a regular file/);
  unlinkSync(`${file}.head`);
  writeFileSync(`${file}.head`, head);
  // In a directory, a FIFO named as the chain's rotated file is taken for one: refused, not waited on.
  execFileSync('mkfifo', [`${file}.1`]);
  const inDir = await cli(['audit', 'verify', dir]);
  t.equal(inDir.code, 2, inDir.err);
  t.match(inDir.err, /cannot read .*audit\.jsonl\.1: is a FIFO \(named pipe\), not a regular file/);
});
