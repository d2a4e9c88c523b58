// What the admin API answers is never stored by a cache (it holds the journal, the report, the
// scenario and who pulled the lever), and the text a caller gives the lever (`reason`, `by`)
// reaches /status, logs and the audit log without control or text-reordering characters.
import t from 'tap';
import { adminCall, startTestRuntime } from './control-fixture.js';

t.test('every admin answer says Cache-Control: no-store, refusals included', async (t) => {
  const runtime = await startTestRuntime(t);
  for (const [method, path] of [
    ['GET', '/status'],
    ['GET', '/scenario'],
    ['GET', '/journal'],
    ['GET', '/report'],
    ['GET', '/metrics'],
    ['GET', '/audit'],
    ['GET', '/safety-lever'],
    ['GET', '/no-such-endpoint'],
    ['PATCH', '/rules/no-such-rule'],
  ] as const) {
    const reply = await adminCall(runtime, method, path, method === 'PATCH' ? { body: '{"enabled":false}' } : {});
    t.equal(reply.headers['cache-control'], 'no-store', `${method} ${path} (${reply.status})`);
  }
});

t.test("the lever's reason and name lose control, bidi and line-separator characters", async (t) => {
  const runtime = await startTestRuntime(t);
  const hostile = 'ok\u202e\u2066evil\u2069\u200f\u0085\u009b31m\u2028next\u0007';
  const pulled = await adminCall(runtime, 'PUT', '/safety-lever', { body: JSON.stringify({ reason: hostile, by: `ops${hostile}` }) });
  t.equal(pulled.status, 200);
  const state = runtime.status().safety_lever as { reason?: string; by?: string };
  t.ok(state.reason && state.by, JSON.stringify(state));
  for (const text of [state.reason ?? '', state.by ?? '']) {
    t.notMatch(text, /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/, JSON.stringify(text));
    t.match(text, /ok.*evil.*next/, 'the visible text stays');
  }
});
