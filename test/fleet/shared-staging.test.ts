// Running in shared staging with three replicas on one real redis-server: a scenario with a TTL
// reverts on every replica by itself; the safety lever stops faults on all three within a second
// and refuses `ctl use`; a guardrail breached by a flawed buyer halts the fleet and the audit log
// says so; `aap-chaos audit verify` catches an edited or removed line.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { runCtl } from '../../src/commands/ctl.js';
import type { Runtime } from '../../src/runtime.js';
import { redisMissing } from '../helpers/debian-services.js';
import { calm, failing, search, startFleet } from '../helpers/fleet.js';
import { request, waitFor } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../reliability/cli-run.js';

const skip = redisMissing();
const yaml = { 'content-type': 'application/yaml' };
const json = { 'content-type': 'application/json' };

async function auditOf(r: Runtime): Promise<Array<Record<string, unknown>>> {
  const res = await request(`${r.adminUrl}/audit`);
  return res.body
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The fleet's audit stream once it holds an entry of `action` (appended just after the change it records). */
async function auditWith(r: Runtime, action: string, ms = 5_000): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const audit = await auditOf(r);
    if (audit.some((e) => e.action === action)) return audit;
    if (Date.now() > deadline) throw new Error(`no ${action} entry in the audit stream within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Subscribes to a replica's /events; resolves once connected, with the promise of the next notice of one kind. */
function subscribeNotice(r: Runtime, event: string): Promise<{ next: Promise<{ message: string }> }> {
  return new Promise((connected, failed) => {
    const ws = new WebSocket(`${r.adminUrl.replace(/^http/, 'ws')}/events`);
    const next = new Promise<{ message: string }>((resolve) => {
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { type?: string; event?: string; message: string };
        if (m.type === 'notice' && m.event === event) {
          ws.close();
          resolve(m);
        }
      });
    });
    ws.on('error', failed);
    ws.on('open', () => connected({ next }));
  });
}

t.test('a scenario loaded with a TTL reverts on all three replicas by itself', { skip }, async (t) => {
  const fleet = await startFleet(t, 3, calm);
  const [r1, r2, r3] = fleet.replicas as [Runtime, Runtime, Runtime];
  const put = await request(`${r1.adminUrl}/scenario?ttl=2s`, { method: 'PUT', body: failing, headers: yaml });
  t.equal(put.status, 200);
  t.equal(JSON.parse(put.body.toString()).ttl.reverts_to, 'calm');
  await waitFor(() => fleet.replicas.every((r) => r.status().scenario === 'failing' && r.status().ttl.some((x) => x.target === 'scenario')), 5_000);
  for (const r of fleet.replicas) {
    const ttl = r.status().ttl.find((x) => x.target === 'scenario')!;
    t.ok(ttl.remaining_s > 0 && ttl.remaining_s <= 2, `${r.status().state.replica} shows the time left (${ttl.remaining_s} s)`);
    t.equal(ttl.reverts_to, 'calm');
  }
  t.equal((await search(r3.url, 1)).code, 'INTERNAL_ERROR', 'the scenario applies on the third replica');
  const notice = (await subscribeNotice(r2, 'ttl-expired')).next;

  await waitFor(() => fleet.replicas.every((r) => r.status().scenario === 'calm'), 10_000);
  t.pass('every replica is back on the scenario in force before');
  t.equal((await search(r3.url, 2)).code, undefined, 'and the third replica forwards untouched again');
  t.match((await notice).message, /ttl expired: scenario failing reverts to calm/, 'an /events message on another replica');
  t.same(
    fleet.replicas.map((r) => r.status().ttl),
    [[], [], []],
    'no TTL left anywhere',
  );
  const audit = await auditWith(r3, 'scenario-revert');
  const revert = audit.find((e) => e.action === 'scenario-revert');
  t.ok(revert, 'the fleet audit stream records the revert');
  t.match(revert, { target: 'scenario', remote: null, detail: 'ttl expired' });
  t.equal(revert!.scenario_before, audit.find((e) => e.action === 'scenario-load')!.scenario_after, 'from the scenario loaded with the TTL');
});

t.test('the safety lever stops faults on all three within 1 s and refuses ctl use until released', { skip }, async (t) => {
  const fleet = await startFleet(t, 3, failing);
  const [r1, r2, r3] = fleet.replicas as [Runtime, Runtime, Runtime];
  t.equal((await search(r2.url, 1)).code, 'INTERNAL_ERROR');
  const pulledAt = Date.now();
  const pull = await request(`${r1.adminUrl}/safety-lever`, {
    method: 'PUT',
    body: JSON.stringify({ reason: 'partner buyer broken', by: 'alice' }),
    headers: json,
  });
  t.equal(pull.status, 200);
  await waitFor(() => fleet.replicas.every((r) => r.status().safety_lever.pulled && r.status().dry_run), 1_000);
  t.ok(Date.now() - pulledAt < 1_000, `every replica is in dry run ${Date.now() - pulledAt} ms after the pull`);
  for (const r of fleet.replicas)
    t.match(r.status().safety_lever, { pulled: true, reason: 'partner buyer broken', by: 'alice', replica: 'r1' }, 'reason and who are in /status');
  t.equal((await search(r3.url, 2)).code, undefined, 'a request on the third replica is no longer faulted');

  const dir = tempDir(t, 'aap-chaos-lever-');
  writeFileSync(path.join(dir, 'calm.json'), JSON.stringify(calm));
  const errLines: string[] = [];
  const code = await runCtl(['use', path.join(dir, 'calm.json')], { adminUrl: r2.adminUrl, out: () => {}, err: (l) => errLines.push(l) });
  t.equal(code, 1, 'ctl use is refused');
  t.match(errLines.join('\n'), /answered 409: a new scenario is refused: the safety lever is pulled by alice: partner buyer broken/);
  const patch = await request(`${r3.adminUrl}/rules/every-search-fails`, { method: 'PATCH', body: JSON.stringify({ enabled: false }), headers: json });
  t.equal(patch.status, 409, 'and so is a rule switch');
  t.same(
    fleet.replicas.map((r) => r.status().scenario),
    ['failing', 'failing', 'failing'],
    'nothing changed',
  );

  const released = await runCtl(['release'], { adminUrl: r3.adminUrl, out: () => {} });
  t.equal(released, 0);
  await waitFor(() => fleet.replicas.every((r) => !r.status().safety_lever.pulled && !r.status().dry_run), 1_000);
  t.equal((await search(r1.url, 3)).code, 'INTERNAL_ERROR', 'faults apply again once released');
  const actions = (await auditOf(r1)).map((e) => e.action);
  t.match(actions, ['lever-pull', 'lever-release'], 'both moves are in the fleet audit stream');
});

t.test('a guardrail breached by a flawed buyer halts the fleet; the audit log shows it', { skip }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-guardrail-');
  const guarded = `scenario: throttled
guardrails:
  - name: no-retry-storm
    metric: retry_storm_ratio
    max: 0.5
    min_requests: 4
    window_s: 60
    faults: include
rules:
  - id: throttle
    match: { skill: inventory.search }
    rate_limit: { limit: 1, window_ms: 60000 }
`;
  const fleet = await startFleet(t, 3, guarded, { auditDir: dir });
  // The flawed buyer resends the same search at once, whatever retry_after_ms says; bounded, and
  // it stops as soon as the proxy no longer throttles it.
  let sent = 0;
  for (; sent < 30; sent++) {
    const r = fleet.replicas[sent % 3]!;
    const reply = await search(r.url, sent, {});
    if (sent > 0 && reply.code === undefined) break;
  }
  t.ok(sent < 30, `the fleet stopped throttling after ${sent} requests`);
  await waitFor(() => fleet.replicas.every((r) => r.status().safety_lever.pulled), 1_000);
  for (const r of fleet.replicas)
    t.equal(r.status().safety_lever.halted_by, 'guardrail no-retry-storm', `${r.status().state.replica}: /status names the guardrail`);
  const breaching = fleet.replicas.find((r) => r.status().safety_lever.replica === r.status().state.replica)!;
  t.match((await request(`${breaching.adminUrl}/metrics`)).body.toString(), /aap_chaos_guardrail_breaches_total\{guardrail="no-retry-storm"\} 1/);
  // Replica 0's own last request may have come before the lever reached it over Redis: one more, now that it has.
  await search(fleet.replicas[0]!.url, sent + 1, {});
  const journal = (await request(`${fleet.replicas[0]!.adminUrl}/journal`)).body
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { halted_by?: string });
  t.equal(journal.at(-1)!.halted_by, 'guardrail no-retry-storm', 'journal lines written while halted say who halted');
  const audit = await auditWith(fleet.replicas[2]!, 'lever-pull');
  const breach = audit.find((e) => e.action === 'guardrail-breach');
  t.match(breach, { target: 'guardrail:no-retry-storm', detail: /retry_storm_ratio \d\.\d\d > 0\.50/ });
  t.match(
    audit.find((e) => e.action === 'lever-pull'),
    { detail: /by guardrail no-retry-storm/ },
  );
  const ctlOut: string[] = [];
  await runCtl(['status'], { adminUrl: fleet.replicas[1]!.adminUrl, out: (l) => ctlOut.push(l) });
  t.match(ctlOut.join('\n'), /SAFETY LEVER PULLED \(halted by guardrail no-retry-storm\)/, 'ctl status shows it');
});

t.test('audit verify: the fleet stream and each file verify; an edited or removed line is named', { skip }, async (t) => {
  const dir = tempDir(t, 'aap-chaos-audit-');
  const fleet = await startFleet(t, 3, calm, { auditDir: dir });
  const [r1, r2] = fleet.replicas as [Runtime, Runtime];
  const token = 'not-in-the-log-s3cret';
  for (const [r, body] of [
    [r1, failing],
    [r2, JSON.stringify(calm)],
    [r1, failing],
  ] as const)
    t.equal((await request(`${r.adminUrl}/scenario`, { method: 'PUT', body, headers: { ...yaml, authorization: `Bearer ${token}` } })).status, 200);
  t.equal((await request(`${r2.adminUrl}/reset`, { method: 'POST', body: '{}', headers: json })).status, 200);
  t.equal((await request(`${r1.adminUrl}/dry-run`, { method: 'PUT', body: '{"enabled":true}', headers: json })).status, 200);
  await r1.staging.audit.flush();

  const file = path.join(dir, 'r1.audit.jsonl');
  const text = readFileSync(file, 'utf8');
  t.notMatch(text, token, 'the token never reaches the log');
  const lines = text.trim().split('\n');
  t.same(
    lines.map((l) => JSON.parse(l).action),
    ['file-start', 'scenario-load', 'scenario-load', 'dry-run'],
    "the file's first entry, then r1's own actions, in order",
  );
  t.match(JSON.parse(lines[1]!), {
    replica: 'r1',
    target: 'scenario',
    scenario_before: /^[0-9a-f]{64}$/,
    scenario_after: /^[0-9a-f]{64}$/,
    remote: '127.0.0.1',
    token: /^sha256:[0-9a-f]{12}$/,
  });
  t.equal((await runCli(['audit', 'verify', file])).code, 0, 'the file verifies');

  const stream = path.join(dir, 'fleet.jsonl');
  writeFileSync(stream, (await request(`${r2.adminUrl}/audit`)).body);
  const intact = await runCli(['audit', 'verify', '--no-head', stream]);
  t.equal(intact.code, 0, 'the fleet stream from GET /audit verifies (it has no head file: --no-head)');
  t.match(intact.out, /5 entries, seq 1-5\): chain intact/);

  const edited = lines.slice();
  edited[2] = edited[2]!.replace('"scenario-load"', '"reset"');
  writeFileSync(file, edited.join('\n') + '\n');
  const editedRun = await runCli(['audit', 'verify', file]);
  t.equal(editedRun.code, 1, 'an edited line fails');
  t.match(editedRun.err, /r1\.audit\.jsonl:3: edited: its content does not match its hash/);

  writeFileSync(file, [lines[0], lines[1], lines[3]].join('\n') + '\n');
  const removedRun = await runCli(['audit', 'verify', file]);
  t.equal(removedRun.code, 1, 'a removed line fails');
  t.match(removedRun.err, /r1\.audit\.jsonl:3: the chain is broken before this line .*entry 3 is missing/);
});
