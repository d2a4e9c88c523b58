// Per-test sessions on one shared proxy: the session header scopes rule state, the journal and the
// report; requests without it share the default session.
import t from 'tap';
import { startChaos, type Scenario } from '../../src/index.js';
import { runCtl } from '../../src/commands/ctl.js';
import { SessionTable } from '../../src/engine/sessions.js';
import { request, skillRequest } from '../helpers/servers.js';

const scenario: Scenario = {
  scenario: 'two-errors-per-session',
  seed: 3,
  rules: [
    { id: 'twice', match: { skill: 'inventory.search' }, when: { times: 2 }, error: 'INTERNAL_ERROR' },
    { id: 'window', match: { skill: 'inventory.vehicle' }, rate_limit: { limit: 1, window_ms: 60_000 } },
  ],
};

async function search(url: string, session: string | undefined, id: number) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  if (session !== undefined) headers['x-aap-chaos-session'] = session;
  const reply = await request(`${url}/a2a`, {
    body: skillRequest('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 1 } }, id),
    headers,
  });
  return JSON.parse(reply.body.toString()) as { error?: { data?: { code?: string } } };
}

t.test('two sessions in parallel: a times: 2 rule fires twice per session, and each report sees only its own requests', async (t) => {
  const chaos = await startChaos({ scenario });
  t.teardown(() => chaos.close());
  const runSession = async (session: string, base: number) => {
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) codes.push((await search(chaos.url, session, base + i)).error?.data?.code);
    return codes;
  };
  const [a, b] = await Promise.all([runSession('test-a', 100), runSession('test-b', 200)]);
  t.same(a, ['INTERNAL_ERROR', 'INTERNAL_ERROR', undefined, undefined], 'session a: two errors, then results');
  t.same(b, ['INTERNAL_ERROR', 'INTERNAL_ERROR', undefined, undefined], 'session b: its own two errors');
  t.equal(chaos.status().rules.find((r) => r.id === 'twice')!.fired, 4, 'status counts fires over every session');

  const own = chaos.journal({ session: 'test-a' });
  t.equal(own.length, 4);
  t.ok(
    own.every((e) => e.session === 'test-a'),
    'journal lines carry their session',
  );
  t.same(own.map((e) => e.rpc_id).sort(), [100, 101, 102, 103]);

  const reportA = chaos.report({ session: 'test-a' });
  t.same(reportA.clients, ['127.0.0.1']);
  const evidence = reportA.checks.flatMap((c) => c.evidence);
  const idsOfB = new Set(chaos.journal({ session: 'test-b' }).map((e) => e.id));
  t.ok(evidence.length > 0, 'the report of a has evidence');
  t.notOk(
    evidence.some((id) => idsOfB.has(id)),
    'no evidence from session b in the report of a',
  );

  // Over the admin API, too.
  const http = async (path: string, method = 'GET') => {
    // State changes carry a JSON content type, as the admin API requires of every POST.
    const res = await fetch(chaos.adminUrl + path, method === 'GET' ? { method } : { method, headers: { 'content-type': 'application/json' }, body: '{}' });
    return { status: res.status, text: await res.text() };
  };
  const journalB = await http('/journal?session=test-b');
  t.equal(journalB.status, 200);
  const linesB = journalB.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(linesB.map((e: { rpc_id: number }) => e.rpc_id).sort(), [200, 201, 202, 203]);
  const reportB = JSON.parse((await http('/report?session=test-b')).text);
  t.notOk(reportB.checks.flatMap((c: { evidence: string[] }) => c.evidence).some((id: string) => own.some((e) => e.id === id)));
  const bad = await http('/report?session=has%20space');
  t.equal(bad.status, 400);
  t.match(JSON.parse(bad.text).error.message, /^session: .*not a session id/);
  const listed = JSON.parse((await http('/sessions')).text);
  t.same(listed.sessions.map((s: { id: string }) => s.id).sort(), ['test-a', 'test-b']);

  // ctl report --session
  const lines: string[] = [];
  t.equal(await runCtl(['report', '--json', '--session', 'test-a'], { adminUrl: chaos.adminUrl, token: '', out: (l) => lines.push(l) }), 0);
  t.same(
    JSON.parse(lines.join('\n'))
      .checks.flatMap((c: { evidence: string[] }) => c.evidence)
      .sort(),
    evidence.sort(),
  );

  // Resetting one session starts its counters afresh and leaves the other alone.
  const reset = await http('/sessions/test-a/reset', 'POST');
  t.equal(reset.status, 200);
  t.equal(chaos.journal({ session: 'test-a' }).length, 0, 'its journal lines leave the ring');
  t.equal(chaos.journal({ session: 'test-b' }).length, 4, 'the other session keeps its lines');
  t.equal((await search(chaos.url, 'test-a', 104)).error?.data?.code, 'INTERNAL_ERROR', 'session a fires again after its reset');
  t.equal((await search(chaos.url, 'test-b', 204)).error?.data?.code, undefined, 'session b is still past its two');
});

t.test('requests without the header share the default session; a configured header name is honoured', async (t) => {
  const chaos = await startChaos({ scenario, sessionHeader: 'X-Test-Run' });
  t.teardown(() => chaos.close());
  const codes: (string | undefined)[] = [];
  for (let i = 0; i < 3; i++) codes.push((await search(chaos.url, undefined, i)).error?.data?.code);
  t.same(codes, ['INTERNAL_ERROR', 'INTERNAL_ERROR', undefined], 'no header: one shared default session, as without sessions');
  const reply = await request(`${chaos.url}/a2a`, {
    body: skillRequest('inventory.search', { filters: {} }, 9),
    headers: { 'content-type': 'application/json', 'x-test-run': 'run-1' },
  });
  t.equal(JSON.parse(reply.body.toString()).error?.data?.code, 'INTERNAL_ERROR', 'the configured header names a fresh session');
  t.equal(chaos.journal({ session: 'default' }).length, 3);
  t.equal(chaos.journal({ session: 'run-1' }).length, 1);
  t.notOk('session' in chaos.journal({ session: 'default' })[0]!, 'default-session lines carry no session field');
});

t.test('an unusable session id is noted and the request joins the default session', async (t) => {
  const chaos = await startChaos({ scenario });
  t.teardown(() => chaos.close());
  await request(`${chaos.url}/a2a`, {
    body: skillRequest('inventory.search', {}, 1),
    headers: { 'content-type': 'application/json', 'x-aap-chaos-session': 'x'.repeat(129) },
  });
  const [line] = chaos.journal();
  t.equal(line!.session, undefined);
  t.match(line!.notes, [/x-aap-chaos-session ignored/]);
});

t.test('the session table is bounded in count and idle time', async (t) => {
  const table = new SessionTable(1, { max: 2, idleMs: 1_000 });
  table.get('a', 0);
  table.get('b', 10);
  table.get(undefined, 20);
  table.get('a', 30); // a is now the most recently used
  table.get('c', 40); // over the limit: b, the least recently used, goes
  t.same(
    table
      .list(40)
      .map((s) => s.id)
      .sort(),
    ['a', 'c', 'default'],
    'the default session never counts or leaves',
  );
  const a = table.get('a', 50);
  a.keys.set('r', new Map([['k', { seen: 5, fired: 1, data: {} }]]));
  t.equal(table.get('a', 500).keys.size, 1, 'state kept while in use');
  t.equal(table.get('a', 2_000).keys.size, 0, 'idle longer than the limit: the session starts afresh');
});

t.test('a session header name that cannot be a header is refused with the flag named', async (t) => {
  await t.rejects(startChaos({ sessionHeader: 'has space' }), {
    message: /^option sessionHeader \(flag --session-header\): "has space" is not an HTTP header name/,
  });
});

t.test('rate-limit windows and max_active_faults are per session too', async (t) => {
  const chaos = await startChaos({
    scenario: {
      scenario: 'slots',
      max_active_faults: 1,
      rules: [
        { id: 'window', match: { skill: 'inventory.vehicle' }, rate_limit: { limit: 1, window_ms: 60_000 } },
        { id: 'slow', match: { skill: 'inventory.search' }, delay: { ms: 400 } },
      ],
    },
  });
  t.teardown(() => chaos.close());
  const call = async (skill: string, session: string, id: number) => {
    const reply = await request(`${chaos.url}/a2a`, {
      body: skillRequest(skill, skill === 'inventory.vehicle' ? { vin: '3FMUKX5S6SF000001' } : { filters: {} }, id),
      headers: { 'content-type': 'application/json', 'x-aap-chaos-session': session },
    });
    return JSON.parse(reply.body.toString()) as { error?: { data?: { code?: string } } };
  };
  t.equal((await call('inventory.vehicle', 'a', 1)).error, undefined);
  t.equal((await call('inventory.vehicle', 'a', 2)).error?.data?.code, 'RATE_LIMITED', 'the second lookup of a is over its window');
  t.equal((await call('inventory.vehicle', 'b', 3)).error, undefined, 'b has a window of its own');

  // Two slow searches at once in one session: one slot. In two sessions: one slot each.
  await Promise.all([call('inventory.search', 'c', 4), call('inventory.search', 'c', 5)]);
  await Promise.all([call('inventory.search', 'd', 6), call('inventory.search', 'e', 7)]);
  const fired = (session: string) => chaos.journal({ session }).filter((e) => e.fired.includes('slow')).length;
  t.equal(fired('c'), 1, 'same session: the second search found the slot taken');
  t.match(
    chaos.journal({ session: 'c' }).flatMap((e) => e.effects),
    [/max_active_faults \(1\) reached/],
  );
  t.same([fired('d'), fired('e')], [1, 1], 'different sessions: each has its own slot');
});
