import t from 'tap';
import { toJUnit } from '../../src/report/junit.js';
import { buildReport } from '../../src/report/report.js';
import { formatReport } from '../../src/report/format.js';
import { JournalBuilder, reply } from './journal-builder.js';

function mixedReport() {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(1000));
  j.at(5); // early: retry-after and no-storm fail
  j.at(2000, { skill: 'lead.submit', request_hash: 'hash-lead', idempotency_key: 'k', ...reply.internalError() });
  j.at(2500, { skill: 'lead.submit', request_hash: 'hash-lead', idempotency_key: 'k' }); // backoff and idempotency pass
  j.at(0, { client: 'buyer-b' });
  return buildReport(j.entries, { profile: '2.0' });
}

/** Counts elements by name in a flat XML document. */
const countTags = (xml: string, tag: string) => (xml.match(new RegExp(`<${tag}[\\s>/]`, 'g')) ?? []).length;

t.test('the table lines up its columns and lists evidence and a summary', async (t) => {
  const report = mixedReport();
  const lines = formatReport(report).split('\n');
  t.match(lines[0], /^CHECK\s+ID\s+CLIENT\s+VERDICT\s+EXPLANATION$/);
  const rows = lines.slice(1, 1 + report.checks.length);
  const verdictColumn = lines[0].indexOf('VERDICT');
  for (const row of rows) t.match(row.slice(verdictColumn), /^(PASS|FAIL|NOT EXERCISED|NOT APPLICABLE)\s/, 'verdicts start in one column');
  t.match(
    rows.find((r) => r.startsWith('retry-after') && r.includes('buyer-a')),
    /FAIL\s+came back early/,
  );
  t.ok(lines.includes('Evidence (journal ids):'));
  t.ok(lines.some((l) => /^\s+retry-after\s+buyer-a\s+j01 j02$/.test(l)));
  t.match(
    rows.find((r) => r.startsWith('sold-vehicle') && r.includes('buyer-b')),
    /AAP-BUYER-008\s+buyer-b\s+NOT APPLICABLE\s+this client never called inventory\.vehicle/,
  );
  t.equal(lines.at(-1), 'FAIL: 4 passed, 2 failed, 12 not exercised, 4 not applicable (2 clients)');
  t.notOk(
    lines.some((l) => l.endsWith(' ')),
    'no trailing spaces',
  );
});

t.test('long evidence lists are shortened in the table only', async (t) => {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(60_000));
  for (let i = 1; i <= 14; i++) j.at(i * 10);
  const report = buildReport(j.entries);
  const storm = report.checks.find((c) => c.check === 'no-storm');
  t.equal(storm?.evidence.length, 15);
  t.match(formatReport(report), /no-storm\s+buyer-a\s+j01 j02 j03 j04 j05 j06 j07 j08 j09 j10 … \(\+5 more\)/);
});

t.test('an empty report says there was nothing to grade', async (t) => {
  t.match(formatReport(buildReport([])), /no buyer requests/);
});

t.test('JUnit: one testcase per check and client, failures and skips counted', async (t) => {
  const report = mixedReport();
  const xml = toJUnit(report);
  t.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
  t.equal(countTags(xml, 'testsuite'), 1);
  t.equal(countTags(xml, 'testcase'), 22);
  t.equal(countTags(xml, 'failure'), 2);
  t.equal(countTags(xml, 'skipped'), 16, 'not exercised and not applicable are both skipped');
  t.match(xml, /<testsuite name="aap-chaos buyer resilience" tests="22" failures="2" errors="0" skipped="16"/);
  t.match(
    xml,
    /<testcase classname="aap-chaos\.retry-after" name="retry-after \[buyer-a\]">\n\s+<properties>\n\s+<property name="requirement" value="AAP-BUYER-001"\/>\n\s+<property name="level" value="SHOULD"\/>\n\s+<\/properties>\n\s+<failure type="FAIL" message="came back early[^"]*">evidence \(journal ids\): j01 j02<\/failure>/,
  );
});

t.test('JUnit escapes whatever a client key or explanation holds', async (t) => {
  const j = new JournalBuilder({ client: `<evil & "quoted" 'key'>\u0001` });
  j.at(0, reply.rateLimited(1000));
  j.at(5);
  const xml = toJUnit(buildReport(j.entries));
  t.notMatch(xml, /<evil/);
  t.notMatch(xml, /\u0001/);
  t.match(xml, /name="retry-after \[&lt;evil &amp; &quot;quoted&quot; &apos;key&apos;&gt;\uFFFD\]"/);
  t.equal(countTags(xml, 'testcase'), 11);
});
