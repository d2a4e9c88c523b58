/**
 * check_dealer: `aap-chaos check` against a dealer, from a coding agent. Only a loopback address
 * or a dealer given at start (--target, --dealer) may be probed: a tool input never sends this
 * process's requests to an address the person who started it did not name.
 */
import { z } from 'zod';
import { isLoopbackHost } from '../http/host-names.js';
import { dealerUrl } from './inputs.js';
import { answer, defineTool, refusal } from './tool.js';

export const checkDealerTool = defineTool({
  name: 'check_dealer',
  title: 'Check a dealer for AAP conformance',
  description:
    'Run `aap-chaos check` against a dealer agent: read its card, send a few dozen probes (under 30 s) and grade each conformance rule PASS / FAIL / NOT CHECKED with its evidence. The URL must be a loopback address or the --target given when this server started.',
  input: z.strictObject({
    url: dealerUrl.describe("the dealer's base URL (its card is at /.well-known/agent-card.json)"),
    profile: z.enum(['auto', '1.3', '2.0']).optional().describe('profile to hold the dealer to (default auto: read from the card)'),
    rpc_url: dealerUrl.optional().describe("JSON-RPC URL to probe (default: the card's JSONRPC interface path on url); same rule as url"),
    probe_rate_limit: z.boolean().optional().describe('also send repeated calls until the dealer answers RATE_LIMITED'),
    include_wire: z.boolean().optional().describe('add the wire record of every probe to the result (long)'),
  }),
  output: z.looseObject({
    target: z.string(),
    rpc_url: z.string(),
    profile: z.string(),
    ok: z.boolean().describe('false when a MUST rule failed'),
    summary: z.object({ pass: z.number(), fail: z.number(), not_checked: z.number(), must_fail: z.number() }),
    rules: z.array(z.looseObject({ id: z.string(), severity: z.string(), title: z.string(), verdict: z.string() })),
  }),
  readOnly: false,
  reachesDealer: true,
  async run({ url, profile, rpc_url, probe_rate_limit, include_wire }, { dealerOrigins }) {
    for (const [name, value] of [
      ['url', url],
      ['rpc_url', rpc_url],
    ] as const) {
      const why = value === undefined ? undefined : refusedUrl(value, dealerOrigins);
      if (why) return refusal(`${name}: ${why}`);
    }
    // Loaded on use, as the check command does.
    const [{ runCheck, TargetUnreachableError }, { evidenceLine, formatCheck }] = await Promise.all([
      import('../check/run-check.js'),
      import('../check/check-format.js'),
    ]);
    try {
      const report = await runCheck({ target: url, profile, rpcUrl: rpc_url, probeRateLimit: probe_rate_limit });
      const { wire, ...rest } = report;
      // The check's own first and last lines, and each failed rule between them; the table is in the structured result.
      const text = formatCheck(report).split('\n');
      const failed = report.rules.filter((r) => r.verdict === 'FAIL').map((r) => `FAIL ${r.id} (${r.severity}) ${r.title}: ${evidenceLine(r)}`);
      return answer([text[0], ...failed, text.at(-1)].join('\n'), include_wire ? report : rest);
    } catch (e) {
      if (e instanceof TargetUnreachableError || e instanceof TypeError) return refusal(`check_dealer: ${e.message}`);
      throw e;
    }
  },
});

/** Why this URL may not be probed, or undefined when it may. */
function refusedUrl(text: string, dealerOrigins: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text.slice(0, 80)}" is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http: or https:`;
  if (url.username || url.password) return 'a URL with a user name or password is refused: it would show in the result';
  if (isLoopbackHost(url.hostname) || dealerOrigins.includes(url.origin)) return undefined;
  const given = dealerOrigins.length > 0 ? ` (${dealerOrigins.join(', ')})` : ' (none was given)';
  return `${url.origin} is neither a loopback address nor a dealer given at start${given}`;
}
