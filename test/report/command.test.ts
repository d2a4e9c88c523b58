import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { JournalEntry } from '../../src/journal/entry.js';
import { runReportCommand } from '../../src/report/command.js';
import { JournalBuilder, reply } from './journal-builder.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-report-');

async function journalFile(name: string, lines: (JournalEntry | string)[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

function patientBuyer(): JournalEntry[] {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(1000);
  return j.entries;
}

t.test('exit 0 and a table when nothing fails', async (t) => {
  const file = await journalFile('ok.jsonl', patientBuyer());
  const { exitCode, output } = await runReportCommand(file);
  t.equal(exitCode, 0);
  t.match(output, /retry-after\s+AAP-BUYER-001\s+buyer-a\s+PASS/);
  t.match(output, /^PASS: 2 passed, 0 failed, 6 not exercised, 3 not applicable \(1 client\)$/m);
});

t.test('exit 1 when a check fails; --json prints the report; --junit writes the XML', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(10);
  const file = await journalFile('fail.jsonl', j.entries);
  const junit = join(dir, 'report.xml');
  const { exitCode, output } = await runReportCommand(file, { json: true, junit, profile: '2.0' });
  t.equal(exitCode, 1);
  const report = JSON.parse(output);
  t.equal(report.ok, false);
  t.same(report.checks.find((c: { check: string }) => c.check === 'retry-after').evidence, ['j01', 'j02']);
  t.equal(report.checks.find((c: { check: string }) => c.check === 'version').verdict, 'PASS', 'the profile reaches the checks');
  const xml = await readFile(junit, 'utf8');
  t.equal((xml.match(/<failure /g) ?? []).length, 2);
});

t.test('thresholds reach the checks', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(900);
  const file = await journalFile('tolerant.jsonl', j.entries);
  t.equal((await runReportCommand(file)).exitCode, 1);
  t.equal((await runReportCommand(file, { thresholds: { retry_after_tolerance_ms: 100, storm_tolerance: 1 } })).exitCode, 0);
  const bad = await runReportCommand(file, { thresholds: { storm_tolerance: -1 } });
  t.equal(bad.exitCode, 2);
  t.match(bad.output, /storm_tolerance must be a number ≥ 0, got -1/);
});

t.test('a retry hint written in seconds is read as milliseconds', async (t) => {
  const [limited, retry] = patientBuyer();
  const { retry_after_ms: _dropped, ...inSeconds } = limited;
  const file = await journalFile('seconds.jsonl', [{ ...inSeconds, retry_after_seconds: 2 } as JournalEntry, retry]);
  const { exitCode, output } = await runReportCommand(file);
  t.equal(exitCode, 1, 'the retry came after 1 s against a 2 s hint');
  t.match(output, /against a 2000 ms hint/);
});

t.test('exit 2 naming the file when it cannot be read', async (t) => {
  const missing = join(dir, 'missing.jsonl');
  const { exitCode, output } = await runReportCommand(missing);
  t.equal(exitCode, 2);
  t.equal(output, `aap-chaos report: ${missing}: cannot read the journal: no such file`);
});

t.test('exit 2 naming the line of a malformed or incomplete entry', async (t) => {
  const [first, second] = patientBuyer();
  const notJson = await journalFile('not-json.jsonl', [first, '', '{"id": "j02", "t": ']);
  const broken = await runReportCommand(notJson);
  t.equal(broken.exitCode, 2);
  t.match(broken.output, `${notJson}:3: not valid JSON`);

  const { client: _client, ...noClient } = second;
  const incomplete = await journalFile('incomplete.jsonl', [first, noClient as JournalEntry]);
  const missingField = await runReportCommand(incomplete);
  t.equal(missingField.exitCode, 2);
  t.equal(missingField.output, `aap-chaos report: ${incomplete}:2: the line must have required property 'client'`);

  const wrongType = await journalFile('wrong-type.jsonl', [{ ...first, t: 'yesterday' } as unknown as JournalEntry]);
  t.match((await runReportCommand(wrongType)).output, `${wrongType}:1: field t must be number`);
});
