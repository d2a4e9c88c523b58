// Credentials and lead personal data never reach a sink: the journal file, /journal, /events,
// /report, /metrics, the trace spans and the log lines. A client key read from a secret header is stored hashed.
import t from 'tap';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { startRuntime } from '../../src/runtime.js';
import { request, skillRequest } from '../helpers/servers.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';

const SECRETS = ['Bearer-secret-one', 'session=secret-two', 'secret-three-key', 'secret-four-dealer'];
const PERSONAL = ['pii-person@example.com', '+15550001111', 'Jane Secretname'];

t.test('no secret and no personal data in any sink', async (t) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'aap-chaos-secrets-')), 'journal.jsonl');
  const logs: string[] = [];
  const collector = await startOtlpReceiver();
  t.teardown(() => collector.close());
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: { OTEL_BSP_SCHEDULE_DELAY: '10' },
    otlpEndpoint: collector.url,
    journalFile: file,
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
  const headers = { 'content-type': 'application/json', authorization: SECRETS[0]!, cookie: SECRETS[1]!, 'x-api-key': SECRETS[2]!, 'x-dealer-secret': SECRETS[3]! };
  for (const skill of ['inventory.search', 'inventory.search', 'dealer.information'])
    await request(`${rt.url}/a2a`, { body: skillRequest(skill), headers });
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
  sinks.traces = collector.raw.join('\n');
  t.equal(collector.spans.filter((s) => s.kind === 2).length, 4, 'all four requests were traced');
  sinks.logs = logs.join('\n');
  t.equal(sinks['journal file']!.trim().split('\n').length, 4, 'all four requests were journaled');
  for (const [sink, text] of Object.entries(sinks)) {
    for (const secret of [...SECRETS, ...PERSONAL]) t.notOk(text.includes(secret), `${sink} does not contain "${secret}"`);
  }
  const line = JSON.parse(sinks['journal file']!.split('\n')[0]!);
  t.match(line.client, /^key:[0-9a-f]{12}$/, 'the client key from a secret header is a keyed hash');
  t.ok(line.request_hash, 'requests are still told apart by hashes');
});
