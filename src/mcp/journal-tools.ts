/**
 * journal and report: what the buyer did and how it is graded, read from the instance. Journal
 * lines carry no secret (the journal redacts them when it writes), and a call returns a bounded
 * number of them.
 */
import { z } from 'zod';
import type { JournalFilter } from '../control/admin-client.js';
import { eventLine } from '../control/status-lines.js';
import type { CheckResult, Report } from '../report/report.js';
import { clientKey, DEFAULT_JOURNAL_LINES, MAX_JOURNAL_LINES, sessionId, skill, ulid } from './inputs.js';
import { checkResult } from './shapes.js';
import { answer, defineTool, onInstance, refusal } from './tool.js';

export const journalTool = defineTool({
  name: 'journal',
  title: 'Journal lines',
  description: `Journal lines (one per request: method, skill, rules fired, effects, status, error code, retry hint …), filtered. Without \`since\`: the newest \`limit\` lines that match; with \`since\` (a line id): the first \`limit\` lines after it, to page forward with \`next_since\`. At most ${MAX_JOURNAL_LINES} lines per call.`,
  input: z.strictObject({
    skill: skill.optional(),
    outcome: z.enum(['result', 'error', 'unknown']).optional().describe('what the buyer learned: a result, a JSON-RPC error, or nothing it can rely on'),
    client: clientKey.optional(),
    session: sessionId.optional(),
    rule: z.string().min(1).max(256).optional().describe('only requests on which this rule fired'),
    since: ulid.optional().describe('a journal line id: only lines after it'),
    limit: z.number().int().min(1).max(MAX_JOURNAL_LINES).optional().describe(`lines to return (default ${DEFAULT_JOURNAL_LINES})`),
  }),
  output: z.object({
    lines: z.array(z.looseObject({ id: z.string(), ts: z.string(), client: z.string(), status: z.number() })),
    count: z.number(),
    more: z.boolean().describe('more lines match: older ones without `since`, later ones with it'),
    next_since: z.string().optional().describe('the last line id: pass it as `since` for the lines after'),
  }),
  readOnly: true,
  run: ({ limit = DEFAULT_JOURNAL_LINES, since, ...match }, { instance }) =>
    onInstance(async () => {
      // One line more than asked tells whether there are more.
      const filter: JournalFilter = { ...match, ...(since === undefined ? { last: limit + 1 } : { since, limit: limit + 1 }) };
      const found = await instance.journal(filter);
      const more = found.length > limit;
      const lines = !more ? found : since === undefined ? found.slice(1) : found.slice(0, limit);
      const last = lines.at(-1)?.id;
      const head = `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}${more ? (since === undefined ? ' (older ones match too)' : ' (more follow: pass next_since)') : ''}`;
      return answer([head, ...lines.map((e) => `${e.id}  ${eventLine(e)}`)].join('\n'), {
        lines,
        count: lines.length,
        more,
        ...(last ? { next_since: last } : {}),
      });
    }),
});

export const reportTool = defineTool({
  name: 'report',
  title: 'Buyer report',
  description:
    "The buyer report (as GET /report): every check graded PASS / FAIL / NOT EXERCISED / NOT APPLICABLE per client, each with the journal line ids that prove it and an explanation. Give `client` for one buyer's checks, `session` for one session's requests.",
  input: z.strictObject({ client: clientKey.optional(), session: sessionId.optional() }),
  output: z.looseObject({
    client_key: z.string(),
    clients: z.array(z.string()),
    checks: z.array(checkResult),
    fails: z.array(checkResult).describe('the checks that failed, with evidence and explanation'),
    summary: z.object({ pass: z.number(), fail: z.number(), not_exercised: z.number(), not_applicable: z.number() }),
    ok: z.boolean().describe('false when any check failed'),
  }),
  readOnly: true,
  run: ({ client, session }, { instance }) =>
    onInstance(async () => {
      const report = await instance.report(session);
      if (client !== undefined && !report.clients.includes(client))
        return refusal(
          `no requests from client "${client}"${session !== undefined ? ` in session ${session}` : ''}; clients: ${report.clients.join(', ') || '(none yet)'}`,
        );
      const checks = client === undefined ? report.checks : report.checks.filter((c) => c.client === client);
      const fails = checks.filter((c) => c.verdict === 'FAIL');
      const summary = summaryOf(checks);
      return answer(reportSummary(report, checks, fails, summary), { ...report, checks, fails, summary, ok: summary.fail === 0 });
    }),
});

function summaryOf(checks: readonly CheckResult[]): Report['summary'] {
  const count = (verdict: CheckResult['verdict']) => checks.filter((c) => c.verdict === verdict).length;
  return { pass: count('PASS'), fail: count('FAIL'), not_exercised: count('NOT EXERCISED'), not_applicable: count('NOT APPLICABLE') };
}

function reportSummary(report: Report, checks: readonly CheckResult[], fails: readonly CheckResult[], summary: Report['summary']): string {
  const clients = new Set(checks.map((c) => c.client)).size;
  const head =
    checks.length === 0
      ? 'no buyer requests in the journal yet: nothing to grade'
      : `${summary.fail > 0 ? 'FAIL' : 'PASS'}: ${summary.pass} passed, ${summary.fail} failed, ${summary.not_exercised} not exercised, ${summary.not_applicable} not applicable (${clients} ${clients === 1 ? 'client' : 'clients'}, keyed by ${report.client_key})`;
  return [head, ...fails.map((f) => `FAIL ${f.check} (${f.id}) client ${f.client}: ${f.explanation}; evidence: ${f.evidence.join(', ')}`)].join('\n');
}
