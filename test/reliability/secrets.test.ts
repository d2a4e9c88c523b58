// Credentials and lead personal data never reach a sink: the journal file, the recording
// (--record), /journal, /events, /report, /metrics, the trace spans and the log lines. A client key
// read from a secret header is stored hashed.
import t from 'tap';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { startRuntime } from '../../src/runtime.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRETS = ['Bearer-secret-one', 'session=secret-two', 'secret-three-key', 'secret-four-dealer'];
const PERSONAL = ['pii-person@example.com', '+15550001111', 'Jane Secretname'];

t.test('no secret and no personal data in any sink', async (t) => {
  const dir = tempDir(t, 'aap-chaos-secrets-');
  const file = path.join(dir, 'journal.jsonl');
  const recording = path.join(dir, 'recording.jsonl');
  const logs: string[] = [];
  const collector = await startOtlpReceiver();
  t.teardown(() => collector.close());
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: { OTEL_BSP_SCHEDULE_DELAY: '10' },
    otlpEndpoint: collector.url,
    journalFile: file,
    record: recording,
    clientKey: 'header:x-dealer-secret',
    redactHeaders: ['X-Dealer-Secret'],
    scenario: 'rules:\n  - { id: keyed, key: "header:x-api-key", match: { skill: inventory.search }, rate_limit: { limit: 1, window_ms: 60000 } }\n',
    log: (line) => logs.push(line),
  });
  t.teardown(() => rt.close());
  const ws = new WebSocket(`${rt.adminUrl.replace(/^http/, 'ws')}/events`);
  const events: string[] = [];
  ws.on('message', (m) => events.push(m.toString()));
  await once(ws, 'open');
  const headers = {
    'content-type': 'application/json',
    authorization: SECRETS[0]!,
    cookie: SECRETS[1]!,
    'x-api-key': SECRETS[2]!,
    'x-dealer-secret': SECRETS[3]!,
  };
  for (const skill of ['inventory.search', 'inventory.search', 'dealer.information']) await request(`${rt.url}/a2a`, { body: skillRequest(skill), headers });
  const lead = { idempotency_key: 'lead-1', customer: { name: PERSONAL[2], email: PERSONAL[0], phone: PERSONAL[1] }, consent: { contact: true } };
  await request(`${rt.url}/a2a`, { body: skillRequest('lead.submit', lead), headers });
  while (events.length < 4) await once(ws, 'message');
  ws.close();

  const sinks: Record<string, string> = {
    '/journal': (await request(`${rt.adminUrl}/journal`)).body.toString(),
    '/report': (await request(`${rt.adminUrl}/report`)).body.toString(),
    '/metrics': (await request(`${rt.adminUrl}/metrics`)).body.toString(),
    '/status': (await request(`${rt.adminUrl}/status`)).body.toString(),
    '/events': events.join('\n'),
  };
  await rt.close();
  sinks['journal file'] = readFileSync(file, 'utf8');
  sinks['recording file'] = readFileSync(recording, 'utf8');
  sinks.traces = collector.raw.join('\n');
  t.equal(collector.spans.filter((s) => s.kind === 2).length, 4, 'all four requests were traced');
  sinks.logs = logs.join('\n');
  t.equal(sinks['journal file']!.trim().split('\n').length, 4, 'all four requests were journaled');
  t.equal(
    sinks['recording file']!.split('\n').filter((l) => l.includes('"type":"exchange"')).length,
    3,
    "the dealer's answers were recorded (the rate-limited one never reached it)",
  );
  for (const [sink, text] of Object.entries(sinks)) {
    for (const secret of [...SECRETS, ...PERSONAL]) t.notOk(text.includes(secret), `${sink} does not contain "${secret}"`);
  }
  const line = JSON.parse(sinks['journal file']!.split('\n')[0]!);
  t.match(line.client, /^key:[0-9a-f]{12}$/, 'the client key from a secret header is a keyed hash');
  t.ok(line.request_hash, 'requests are still told apart by hashes');
});

t.test("a dealer's error reply that echoes contacts or a token is journaled without them; the buyer still gets it as sent", async (t) => {
  const echoed = 'The lead for jane.doe@example.com (+1 (555) 010-4477) was refused; Authorization: Bearer tok-0123456789abcdef is not valid';
  const dealerReply = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32602,
      message: echoed,
      data: {
        code: 'VALIDATION_ERROR',
        details: { customer: { email: 'jane.doe@example.com', phone: '555 010 4477' }, hint: 'retry after 2000 ms on 2026-12-02' },
      },
    },
  });
  const dealer = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(dealerReply);
  });
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, target: dealer.url, profile: '1.3', log: () => {} });
  t.teardown(async () => {
    await rt.close();
    await dealer.close();
  });
  const reply = await request(`${rt.url}/a2a`, { body: skillRequest('lead.submit'), headers: { 'content-type': 'application/json' } });
  t.equal(reply.body.toString(), dealerReply, 'the buyer gets the bytes the dealer sent');
  const text = (await request(`${rt.adminUrl}/journal`)).body.toString();
  for (const secret of ['jane.doe@example.com', '010-4477', '010 4477', 'tok-0123456789abcdef'])
    t.notOk(text.includes(secret), `the journal does not contain "${secret}"`);
  const line = JSON.parse(text.trim().split('\n').at(-1)!);
  t.equal(
    line.reply_error.message,
    'The lead for [e-mail redacted] ([phone redacted]) was refused; Authorization: Bearer [redacted] is not valid',
    'what was there is still readable',
  );
  t.same(
    line.reply_error.data.details,
    { customer: { email: '[e-mail redacted]', phone: '[phone redacted]' }, hint: 'retry after 2000 ms on 2026-12-02' },
    'data too; numbers that are no phone are kept',
  );
  t.equal(line.rpc_code, -32602, 'the code the report reads is untouched');
});
