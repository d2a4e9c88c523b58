// Secrets and personal data are scrubbed by value as well as by name. A dealer that echoes the
// buyer's credential under an ordinary member name (`seen_auth`), sends `x-auth-token` or
// `x-amz-security-token` headers, quotes a lead's free-text message or names the customer in its
// error leaves none of it in the recording or the journal: the request's own secrets are found
// wherever they are echoed, token shapes (`Bearer …`, `sk_live_…`, JWTs) are masked, and e-mail
// addresses and phone numbers outside `customer` become the same stable pseudonyms as inside it.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readRecording } from '../../src/recording/reader.js';
import { startRuntime } from '../../src/runtime.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const BEARER = 'Bearer abc-live-token-4242';
const API_KEY = 'plainkey-7f3a9c2e1d';
const STRIPE = 'sk_live_51Habcdefghijklmnop';
const MESSAGE_PHONE = '+1 (555) 010-4477';
const MESSAGE_EMAIL = 'jo.private@example.org';
const CUSTOMER = { first_name: 'Zyxella', last_name: 'Quortwain', email: 'zq@example.net', preferred_contact: 'email' };
const lead = {
  customer: CUSTOMER,
  consent: { granted_at: '2030-01-06T10:00:00Z', allowed_channels: ['email'], consent_text: 'I agree.', scope: ['lead_submission'] },
  source_agent: { name: 'buyer', password: 'hunter2-in-body' },
  idempotency_key: 'lead-1',
  message: `Call me at ${MESSAGE_PHONE} or mail ${MESSAGE_EMAIL}`,
};
const headers = { 'content-type': 'application/json', authorization: BEARER, 'x-api-key': API_KEY };
/** Everything above that must not be kept. */
const NEVER = [
  BEARER,
  'abc-live-token-4242',
  API_KEY,
  STRIPE,
  MESSAGE_EMAIL,
  '010-4477',
  '5550104477',
  'hunter2-in-body',
  'Zyxella',
  'Quortwain',
  'zq@example.net',
  'hdr-secret-1',
  'hdr-secret-2',
];

/** A dealer that echoes whatever it was sent, under names that say nothing of secrets. */
async function echoingDealer(t: Test, asError: boolean) {
  const dealer = await startUpstream((req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const sent = JSON.parse(body.toString()) as { id: unknown; params: { message: { parts: { data: Record<string, unknown> }[] } } };
    const data = sent.params.message.parts[0]!.data as { message?: string; customer?: { first_name?: string; last_name?: string } };
    const echo = {
      seen_auth: req.headers.authorization,
      seen_key: `your key was ${req.headers['x-api-key']}`,
      note: `lead from ${data.customer?.first_name} ${data.customer?.last_name}: ${data.message}`,
      billing: { api: STRIPE, password: 'hunter2-in-body', x_api_key: API_KEY },
    };
    res.writeHead(200, { 'content-type': 'application/json', 'x-auth-token': 'hdr-secret-1', 'x-amz-security-token': 'hdr-secret-2' });
    res.end(
      JSON.stringify(
        asError ? { jsonrpc: '2.0', id: sent.id, error: { code: -32602, message: echo.note, data: echo } } : { jsonrpc: '2.0', id: sent.id, result: echo },
      ),
    );
  });
  t.teardown(() => dealer.close());
  return dealer;
}

t.test('the recording keeps none of it, and the request keeps its pseudonyms', async (t) => {
  const dealer = await echoingDealer(t, false);
  const file = path.join(tempDir(t, 'aap-chaos-secret-values-'), 'rec.jsonl');
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, target: dealer.url, profile: '1.3', record: file, rewriteCard: false, log: () => {} });
  await request(`${rt.url}/a2a`, { body: skillRequest('lead.submit', lead), headers });
  await rt.close();
  const text = readFileSync(file, 'utf8');
  for (const secret of NEVER) t.notOk(text.includes(secret), `the recording does not contain "${secret}"`);
  const [exchange] = (await readRecording(file)).exchanges;
  const sentMessage = (exchange!.request.part!.data as { message: string }).message;
  t.match(sentMessage, /^Call me at \+1555\d{7} or mail customer-[0-9a-f]{10}@example\.invalid$/, 'the message keeps its shape, with pseudonyms');
  const echo = exchange!.reply.body as { result: Record<string, any> };
  t.equal(echo.result.seen_auth, 'Bearer [redacted]', 'a credential under an ordinary name');
  t.equal(echo.result.seen_key, 'your key was [redacted]', "the request's own secret, found by value");
  t.ok(echo.result.note.endsWith(sentMessage), "the echoed message gets the request's pseudonyms");
  t.same(echo.result.billing, { api: '[token redacted]' }, 'a token by shape; secret names dropped');
  t.notOk('x-auth-token' in exchange!.reply.headers || 'x-amz-security-token' in exchange!.reply.headers, 'token headers are not kept');
});

t.test("the journal's reply_error keeps none of it", async (t) => {
  const dealer = await echoingDealer(t, true);
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, target: dealer.url, profile: '1.3', rewriteCard: false, log: () => {} });
  t.teardown(() => rt.close());
  await request(`${rt.url}/a2a`, { body: skillRequest('lead.submit', lead), headers });
  const text = (await request(`${rt.adminUrl}/journal`)).body.toString();
  for (const secret of NEVER) t.notOk(text.includes(secret), `the journal does not contain "${secret}"`);
  const line = JSON.parse(text.trim().split('\n').at(-1)!);
  t.match(line.reply_error.data, { seen_auth: 'Bearer [redacted]', billing: { api: '[token redacted]', password: '[redacted]', x_api_key: '[redacted]' } });
  t.match(
    line.reply_error.message,
    /^lead from \[personal data redacted\] \[personal data redacted\]: Call me at \[phone redacted\] or mail \[e-mail redacted\]$/,
  );
});
