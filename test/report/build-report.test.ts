import t from 'tap';
import { DEFAULT_EXAM_CHECK_NAMES as CHECK_NAMES } from '../../src/report/checks/index.js';
import { buildReport } from '../../src/report/report.js';
import { ThresholdError } from '../../src/report/thresholds.js';
import { JournalBuilder, reply } from './journal-builder.js';

t.test('every check is graded for every client, clients sorted', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { client: 'zeta' });
  j.at(10, { client: 'alpha' });
  const report = buildReport(j.entries);
  t.same(report.clients, ['alpha', 'zeta']);
  t.equal(report.checks.length, 2 * CHECK_NAMES.length);
  t.same(
    report.checks.slice(0, CHECK_NAMES.length).map((c) => [c.check, c.client]),
    CHECK_NAMES.map((name) => [name, 'alpha']),
  );
  t.same(report.summary, { pass: 0, fail: 0, not_exercised: 16, not_applicable: 6 }, 'checks about skills these clients never called are not applicable');
  t.equal(report.ok, true);
  t.ok(Number.isFinite(Date.parse(report.generated_at)));
});

t.test('clients are graded separately, and one FAIL makes the report not ok', async (t) => {
  const j = new JournalBuilder();
  j.at(0, { client: 'careful', ...reply.rateLimited(1000) });
  j.at(1000, { client: 'careful' });
  j.at(0, { client: 'eager', ...reply.rateLimited(1000) });
  j.at(5, { client: 'eager' });
  const report = buildReport(j.entries);
  const verdict = (client: string) => report.checks.find((c) => c.check === 'retry-after' && c.client === client)?.verdict;
  t.equal(verdict('careful'), 'PASS');
  t.equal(verdict('eager'), 'FAIL');
  t.equal(report.ok, false);
  t.equal(report.summary.fail, 2, 'retry-after and no-storm both fail for the eager client');
});

t.test('entries are graded in start order whatever order they arrive in', async (t) => {
  const j = new JournalBuilder();
  const retry = j.at(1000);
  const limited = j.at(0, reply.rateLimited(1000));
  const result = buildReport(j.entries).checks.find((c) => c.check === 'retry-after');
  t.equal(result?.verdict, 'PASS');
  t.same(result?.evidence, [limited, retry]);
});

t.test('bad thresholds are rejected with their name', async (t) => {
  t.throws(() => buildReport([], { thresholds: { backoff_max_retries: -1 } }), ThresholdError);
  t.throws(() => buildReport([], { thresholds: { same_vehicle_max_repeats: 1.5 } }), /same_vehicle_max_repeats must be a whole number/);
  t.throws(() => buildReport([], { thresholds: { retry_after_tolerance_ms: Number.NaN } }), /retry_after_tolerance_ms must be a number ≥ 0, got NaN/);
  t.throws(() => buildReport([], { thresholds: { retry_after_tolerance: 5 } as never }), /unknown report threshold "retry_after_tolerance"/);
  t.equal(buildReport([], { thresholds: { retry_after_tolerance_ms: 0.5 } }).ok, true, 'a tolerance may be fractional');
});

t.test('an empty journal grades nothing and is ok', async (t) => {
  const report = buildReport([]);
  t.same(report.clients, []);
  t.same(report.checks, []);
  t.equal(report.ok, true);
});
