// `aap-chaos mcp` as a coding agent's host runs it: the SDK's own Client and StdioClientTransport
// spawn the built command, list its tools and resources, and call them while a buyer drives the
// proxy over plain HTTP.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startChaos } from '../../src/index.js';
import { buildAapError, buildExtensionRequired } from '../../src/protocol/envelopes.js';
import { AAP_EXTENSION_URI_2_0_DRAFT } from '../../src/protocol/codes.js';
import { BIN, cli } from '../helpers/cli-run.js';
import { skillRequest } from '../helpers/servers.js';

// The three parts below share nothing (each starts its own processes on free ports): run them at once.
t.jobs = 3;

/**
 * How long one request may wait for its answer: the server's start (a proxy, the SDK) answers
 * `initialize`, and on a machine busy with other test files that took up to a minute, the SDK's
 * own limit. Tap's 180 s per file stays the outer bound.
 */
const REQUEST = { timeout: 170_000 };

interface McpSession {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { structuredContent?: any }>;
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client saw on the wire: a line on stdout that is not a protocol message would be one. */
  wireErrors: Error[];
  /** Closes stdin (as a host does) and resolves once the process has exited. */
  close(): Promise<void>;
  /** Whether the server process is gone. */
  gone(): boolean;
}

/** Spawns `aap-chaos mcp ARGS` the way a host does, with only the given variables set. */
async function connect(t: Test, args: string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'aap-chaos-test', version: '1.0.0' });
  const wireErrors: Error[] = [];
  client.onerror = (e) => wireErrors.push(e);
  // The transport reports its close once the process has exited (after closing stdin it would
  // signal a server that lingers, but never leaves one behind).
  const exited = new Promise<void>((resolve) => (client.onclose = resolve));
  await client.connect(transport, REQUEST);
  const pid = transport.pid!;
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= client.close().then(() => exited));
  t.teardown(close);
  return {
    call: (name, args = {}) => client.callTool({ name, arguments: args }, undefined, REQUEST) as Promise<CallToolResult & { structuredContent?: any }>,
    client,
    stderr: () => stderr,
    wireErrors,
    close,
    gone: () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ESRCH';
      }
    },
  };
}

const textOf = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A buyer that searches `times` times in a row and keeps the last reply's text. */
async function search(proxyUrl: string, times: number): Promise<{ statuses: (number | undefined)[]; last: string }> {
  const statuses: (number | undefined)[] = [];
  let last = '';
  for (let i = 1; i <= times; i++) {
    const res = await fetch(`${proxyUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: skillRequest('inventory.search', { filters: { make: ['Honda'] } }, i),
    });
    last = await res.text();
    statuses.push(JSON.parse(last).error?.code);
  }
  return { statuses, last };
}

/**
 * Resolves once the journal holds `count` searches. A line is written when the proxy has sent the
 * whole reply, which may be just after the buyer read it; each try is one round trip to the server.
 */
async function journalHolds(mcp: McpSession, count: number): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if ((await mcp.call('journal', { skill: 'inventory.search', limit: 200 })).structuredContent.count >= count) return;
  }
  throw new Error(`the journal never held ${count} searches`);
}

const TOOL_NAMES = ['status', 'list_scenarios', 'validate_scenario', 'use_scenario', 'switch_rule', 'journal', 'report', 'explain_error', 'check_dealer'];

t.test('a proxy of its own: tools, resources, a buyer graded, a bad scenario refused', async (t) => {
  const mcp = await connect(t, ['--port', '0', '--admin-port', '0']);

  t.test('lists every tool with a bounded input schema and an output schema, and the resources', async (t) => {
    const { tools } = await mcp.client.listTools(undefined, REQUEST);
    t.same(
      tools.map((tool) => tool.name),
      TOOL_NAMES,
    );
    for (const tool of tools) {
      t.ok(tool.outputSchema, `${tool.name} has an output schema`);
      t.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {}) as [string, any][])
        if (schema.type === 'string' && !schema.enum) t.ok(schema.maxLength > 0, `${tool.name}.${name} has a maxLength`);
    }
    t.equal((tools.find((tool) => tool.name === 'journal')!.inputSchema.properties as any).limit.maximum, 200);

    const { resources } = await mcp.client.listResources(undefined, REQUEST);
    const uris = resources.map((r) => r.uri);
    t.ok(uris.includes('aap-chaos://schema/scenario.schema.json'));
    t.ok(uris.includes('aap-chaos://docs/scenarios.md'));
    t.ok(uris.includes('aap-chaos://scenarios/rate-limit-storm.yaml'));
    const schema = await mcp.client.readResource({ uri: 'aap-chaos://schema/scenario.schema.json' }, REQUEST);
    t.ok(JSON.parse((schema.contents[0] as { text: string }).text).$defs.Rule, 'the schema, with its rule definition');
    const builtin = await mcp.client.readResource({ uri: 'aap-chaos://scenarios/rate-limit-storm.yaml' }, REQUEST);
    t.match((builtin.contents[0] as { text: string }).text, /scenario: rate-limit-storm/);
    await t.rejects(mcp.client.readResource({ uri: 'aap-chaos://scenarios/../../package.json' }, REQUEST), 'only the listed resources can be read');
  });

  const status = (await mcp.call('status')).structuredContent;

  t.test('use_scenario rate-limit-storm, a buyer that ignores the retry hint, and its FAIL in the report with evidence', async (t) => {
    const loaded = await mcp.call('use_scenario', { name: 'rate-limit-storm' });
    t.notOk(loaded.isError);
    t.match(textOf(loaded), /scenario rate-limit-storm loaded \(seed 42, 3 rules\)/);
    t.equal(loaded.structuredContent.scenario, 'rate-limit-storm');

    const { statuses } = await search(status.url, 7);
    t.same(statuses, [undefined, undefined, undefined, undefined, undefined, -32002, -32002], 'the sixth and seventh searches are RATE_LIMITED');
    await journalHolds(mcp, 7);

    const report = await mcp.call('report', { client: '127.0.0.1' });
    t.notOk(report.isError, textOf(report));
    const fail = report.structuredContent.fails.find((f: any) => f.check === 'retry-after');
    t.ok(fail, 'retry-after FAILs');
    t.equal(report.structuredContent.ok, false);
    t.equal(fail.id, 'AAP-BUYER-001');
    t.match(fail.explanation, /came back early/);
    t.equal(fail.evidence.length, 2, 'the RATE_LIMITED search and the one sent too early');
    t.match(textOf(report), new RegExp(`FAIL retry-after \\(AAP-BUYER-001\\) client 127\\.0\\.0\\.1: .*evidence: ${fail.evidence.join(', ')}`));

    const limited = await mcp.call('journal', { rule: 'throttle-search', outcome: 'error' });
    t.same(
      limited.structuredContent.lines.map((e: any) => e.id),
      fail.evidence,
      'the evidence ids are the journal lines of the two RATE_LIMITED searches',
    );

    const other = await mcp.call('report', { client: '10.9.9.9' });
    t.ok(other.isError);
    t.match(textOf(other), /no requests from client "10\.9\.9\.9"; clients: 127\.0\.0\.1/);
  });

  t.test('journal: filters, the newest lines, paging with since, and a bounded limit', async (t) => {
    const searches = await mcp.call('journal', { skill: 'inventory.search' });
    t.equal(searches.structuredContent.count, 7);
    t.equal(searches.structuredContent.more, false);
    t.match(textOf(searches), /^7 lines\n/);
    t.equal((await mcp.call('journal', { outcome: 'result' })).structuredContent.count, 5);
    t.equal((await mcp.call('journal', { client: '10.9.9.9' })).structuredContent.count, 0);
    t.equal((await mcp.call('journal', { rule: 'throttle-vehicle' })).structuredContent.count, 0);

    const newest = await mcp.call('journal', { limit: 2 });
    t.same(
      newest.structuredContent.lines.map((e: any) => e.rpc_id),
      [6, 7],
      'without since: the newest two, oldest first',
    );
    t.equal(newest.structuredContent.more, true);
    const first = (await mcp.call('journal', { skill: 'inventory.search', limit: 7 })).structuredContent.lines[0].id;
    const page = await mcp.call('journal', { since: first, limit: 3 });
    t.same(
      page.structuredContent.lines.map((e: any) => e.rpc_id),
      [2, 3, 4],
    );
    t.equal(page.structuredContent.more, true);
    t.equal(page.structuredContent.next_since, page.structuredContent.lines[2].id);

    for (const [args, why] of [
      [{ limit: 201 }, /limit/],
      [{ limit: 0 }, /limit/],
      [{ since: 'yesterday' }, /since/],
      [{ client: 'x'.repeat(301) }, /client/],
      [{ outcome: 'maybe' }, /outcome/],
      [{ path: '/etc/passwd' }, /path|Unrecognized/],
      [{ skill: 'inventory.search', padding: Array.from({ length: 300 }, () => 0) }, /more than the maximum of 256 elements/],
    ] as const) {
      const refused = await mcp.call('journal', args);
      t.ok(refused.isError, JSON.stringify(args).slice(0, 60));
      t.match(textOf(refused), why);
    }
  });

  t.test('a bad scenario comes back with its problems (line, column, pointer) and the old one stays', async (t) => {
    const bad = 'scenario: broken\nrules:\n  - id: a\n    error: NOPE\n  - id: b\n    delay: { ms: -5 }\n';
    const checked = await mcp.call('validate_scenario', { text: bad });
    t.notOk(checked.isError, 'validating is not an error; the verdict is');
    t.equal(checked.structuredContent.valid, false);
    t.match(checked.structuredContent.problems, [
      { line: 4, column: 12, pointer: '/rules/0/error', message: /unknown value "NOPE"/ },
      { line: 6, pointer: '/rules/1/delay/ms' },
    ]);

    const refused = await mcp.call('use_scenario', { text: bad });
    t.ok(refused.isError);
    t.match(textOf(refused), /scenario rejected \(2 problems\); the scenario in force is kept\n {2}scenario:4:12 {2}\/rules\/0\/error/);
    t.equal(refused.structuredContent.problems.length, 2);
    t.equal((await mcp.call('status')).structuredContent.scenario, 'rate-limit-storm', 'the old scenario is kept');

    const unknown = await mcp.call('use_scenario', { name: 'no-such-scenario' });
    t.ok(unknown.isError);
    t.match(textOf(unknown), /no built-in scenario named "no-such-scenario"/);
    const path = await mcp.call('use_scenario', { name: '../../etc/passwd' });
    t.ok(path.isError, 'a path is no built-in name');
    const both = await mcp.call('use_scenario', { name: 'passthrough', text: 'rules: []' });
    t.ok(both.isError);

    const good = '{"scenario": "mine", "rules": [{"id": "x", "match": {"skill": "lead.submit"}, "error": "INTERNAL_ERROR"}]}';
    t.match((await mcp.call('validate_scenario', { text: good })).structuredContent, { valid: true, scenario: 'mine', rules: 1, problems: [] });
    const mine = await mcp.call('use_scenario', { text: good, ttl: '10m' });
    t.notOk(mine.isError, textOf(mine));
    t.match(textOf(mine), /^scenario mine loaded \(seed \d+, 1 rule\); reverts to rate-limit-storm in \d+ s$/);
    t.equal((await mcp.call('status')).structuredContent.scenario, 'mine');
    t.notOk((await mcp.call('use_scenario', { name: 'rate-limit-storm' })).isError);
  });

  t.test('switch_rule turns a rule off for a while; an unknown id names the rules there are', async (t) => {
    const off = await mcp.call('switch_rule', { id: 'throttle-search', enabled: false, ttl: '10m' });
    t.notOk(off.isError, textOf(off));
    t.match(off.structuredContent, { id: 'throttle-search', enabled: false, ttl: { reverts_to: 'enabled' } });
    t.match(textOf(off), /^off {2}throttle-search .*; reverts to enabled in \d+ s$/);
    const { statuses } = await search(status.url, 1);
    t.same(statuses, [undefined], 'searches pass while the rule is off');
    const unknown = await mcp.call('switch_rule', { id: 'nope', enabled: true });
    t.ok(unknown.isError);
    t.match(textOf(unknown), /no rule "nope" in scenario rate-limit-storm; rules: throttle-search, throttle-vehicle, throttle-everything-else/);
  });

  t.test('explain_error reads a 1.3 envelope the buyer got, 2.0 envelopes and an HTTP reply', async (t) => {
    await mcp.call('switch_rule', { id: 'throttle-search', enabled: true });
    // Five searches per 10 s pass: the sixth in a row is refused, however slow the machine is.
    let last = '';
    for (let i = 0; i < 6 && !last.includes('RATE_LIMITED'); i++) last = (await search(status.url, 1)).last;
    const limited = await mcp.call('explain_error', { reply: last });
    t.match(limited.structuredContent.reading, { kind: 'aap', code: 'RATE_LIMITED', jsonRpcCode: -32002, retryable: true });
    const hint = limited.structuredContent.reading.retryAfterMs;
    t.ok(hint > 0 && hint <= 10_000, `a retry hint within the window: ${hint} ms`);
    t.same(limited.structuredContent.next, { action: 'retry', afterMs: hint, reason: "RATE_LIMITED: retry after the dealer's hint" });
    t.match(textOf(limited), new RegExp(`^RATE_LIMITED, JSON-RPC -32002, aap error, retryable, retry after ${hint} ms: `));

    const invalid = buildAapError('2.0', 'SCHEMA_VALIDATION_FAILED', 9, {
      errors: [{ instanceLocation: '/filters/year_min', keyword: 'type', error: 'must be integer' }],
    });
    const fix = await mcp.call('explain_error', { reply: JSON.stringify(invalid) });
    t.match(fix.structuredContent.reading, {
      kind: 'aap',
      code: 'SCHEMA_VALIDATION_FAILED',
      retryable: false,
      errors: [{ instanceLocation: '/filters/year_min', keyword: 'type' }],
    });
    t.equal(fix.structuredContent.next.action, 'fix');
    t.match(textOf(fix), /field \/filters\/year_min: type: must be integer/);

    const lead = await mcp.call('explain_error', {
      reply: JSON.stringify(buildAapError('2.0', 'INTERNAL_ERROR', 3).error),
      skill: 'lead.submit',
      idempotency_key: 'lead-42',
      attempt: 2,
    });
    t.match(lead.structuredContent.next, { action: 'retry', idempotencyKey: 'lead-42' });
    t.match(lead.structuredContent.reading, { code: 'INTERNAL_ERROR', retryable: true });

    const activate = await mcp.call('explain_error', { reply: JSON.stringify(buildExtensionRequired(AAP_EXTENSION_URI_2_0_DRAFT, 1)) });
    t.match(activate.structuredContent.next, { action: 'activate', extensionUri: AAP_EXTENSION_URI_2_0_DRAFT, header: 'A2A-Extensions' });

    const gateway = await mcp.call('explain_error', {
      reply: 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\ncontent-type: text/html\r\n\r\n<html>busy</html>',
    });
    t.match(gateway.structuredContent.reading, { kind: 'transport', httpStatus: 503, retryable: true, retryAfterMs: 7000 });
    t.match(gateway.structuredContent.next, { action: 'retry', afterMs: 7000 });
  });

  t.test('check_dealer probes a loopback dealer and refuses any other address', async (t) => {
    const checked = await mcp.call('check_dealer', { url: status.target });
    t.notOk(checked.isError, textOf(checked).slice(0, 400));
    t.equal(checked.structuredContent.ok, true, 'the embedded mock dealer keeps every MUST rule');
    t.equal(checked.structuredContent.wire, undefined, 'the wire record only when asked');
    t.match(textOf(checked), /^aap-chaos check http:\/\/127\.0\.0\.1:\d+.*\nPASS: \d+ passed, 0 failed \(0 MUST\), \d+ not checked$/);
    t.ok(checked.structuredContent.rules.length > 10, 'every rule is in the structured result');
    const away = await mcp.call('check_dealer', { url: 'http://dealer.example' });
    t.ok(away.isError);
    t.match(textOf(away), /url: http:\/\/dealer\.example is neither a loopback address nor a dealer given at start/);
    const withCredentials = await mcp.call('check_dealer', { url: 'http://user:pw@127.0.0.1:9' });
    t.ok(withCredentials.isError);
    t.notMatch(textOf(withCredentials), /pw/);
    const file = await mcp.call('check_dealer', { url: 'file:///etc/passwd' });
    t.ok(file.isError);
  });

  t.test('stdout carries nothing but the protocol; the start-up lines are on stderr', async (t) => {
    t.same(mcp.wireErrors, [], 'every stdout line was a protocol message');
    t.match(mcp.stderr(), /proxy on http:\/\/127\.0\.0\.1:\d+ -> embedded mock dealer/);
    t.match(mcp.stderr(), /aap-chaos mcp: serving tools on stdio for the proxy at http:\/\/127\.0\.0\.1:\d+/);
    await mcp.close();
    t.ok(mcp.gone(), 'the server process is gone');
  });
});

t.test('attach mode: the admin token decides, and no result carries it', async (t) => {
  const TOKEN = 'mcp-test-token-7f3a';
  const chaos = await startChaos({ port: 0, adminPort: 0, scenario: 'rate-limit-storm', adminToken: TOKEN });
  t.teardown(() => chaos.close());
  const [right, wrong, none] = await Promise.all([
    connect(t, ['--admin', chaos.adminUrl], { AAP_CHAOS_ADMIN_TOKEN: TOKEN }),
    connect(t, ['--admin', chaos.adminUrl, '--admin-token', 'not-the-token']),
    connect(t, ['--admin', chaos.adminUrl]),
  ]);

  const status = await right.call('status');
  t.notOk(status.isError, textOf(status));
  t.equal(status.structuredContent.scenario, 'rate-limit-storm');
  t.equal(status.structuredContent.url, chaos.url);
  const switched = await right.call('switch_rule', { id: 'throttle-vehicle', enabled: false });
  t.notOk(switched.isError);
  t.equal(chaos.status().rules.find((r) => r.id === 'throttle-vehicle')!.enabled, false, 'the attached instance changed');

  const refused = await wrong.call('status');
  t.ok(refused.isError, 'a wrong token reads nothing');
  t.match(textOf(refused), /GET \/status answered 401: missing or wrong admin token/);
  const change = await wrong.call('use_scenario', { name: 'passthrough' });
  t.ok(change.isError, 'and changes nothing');
  t.equal(chaos.status().scenario, 'rate-limit-storm', 'the scenario in force is untouched');
  const tokenless = await none.call('journal', { limit: 5 });
  t.ok(tokenless.isError, 'no token at all reads nothing either');
  t.match(textOf(tokenless), /answered 401: missing or wrong admin token/);
  const everything = [right.stderr(), wrong.stderr(), none.stderr(), JSON.stringify([status, refused, change, tokenless])].join('\n');
  t.notMatch(everything, TOKEN);
  t.notMatch(everything, 'not-the-token');
  await Promise.all([right.close(), wrong.close(), none.close()]);
  t.ok(right.gone() && wrong.gone() && none.gone(), 'every server process is gone');
});

t.test('the server ends when the host closes stdin; attach mode takes no run flags, and --admin must be a plain URL', async (t) => {
  // cli() gives the process an empty stdin: a server that waits for nothing more must end by itself, exit 0.
  const [attached, own, withTarget, withCredentials] = await Promise.all([
    cli(['mcp', '--admin', 'http://127.0.0.1:9']),
    cli(['mcp', '--port', '0', '--admin-port', '0']),
    cli(['mcp', '--admin', 'http://127.0.0.1:9', '--target', 'http://127.0.0.1:9']),
    cli(['mcp', '--admin', 'http://user:secret@127.0.0.1:9']),
  ]);
  for (const [run, what] of [
    [attached, 'attached'],
    [own, 'with a proxy of its own, which it stops'],
  ] as const) {
    t.equal(run.code, 0, `${what}: exit 0, by itself (a signal would leave no code)`);
    t.equal(run.out, '', `${what}: nothing on stdout but the protocol`);
  }
  t.match(own.err, /aap-chaos mcp: serving tools on stdio for the proxy at http:\/\/127\.0\.0\.1:\d+/);
  t.equal(withTarget.code, 2);
  t.match(withTarget.err, /^aap-chaos: --target: not with --admin/);
  t.equal(withTarget.out, '', 'nothing on stdout');
  t.equal(withCredentials.code, 2);
  t.match(withCredentials.err, /--admin: a URL with a user name or password is refused/);
  t.notMatch(withCredentials.err, /secret/);
});
