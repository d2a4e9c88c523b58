// Credentials in the URLs an operator gives — --target, --dealer, --otlp-endpoint — (a user part
// `http://user:pw@…`, or `?token=`, `?api_key=`, `?sig=`) appear nowhere the run prints or serves:
// not the start-up lines, not /status, not a trace export failure, not the refusal of a bad value.
// Each shows `***` in their place, so it still says one was given.
import t, { type Test } from 'tap';
import { startRuntime } from '../../src/runtime.js';
import { OptionError } from '../../src/options.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { request, startUpstream } from '../helpers/servers.js';

const SECRETS = ['pw-secret-1', 'tok-secret-2', 'key-secret-3', 'pw-secret-4', 'tok-secret-5', 'sig-secret-6', 'user-token-7'];

async function dealer(t: Test) {
  const up = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  t.teardown(() => up.close());
  return new URL(up.url);
}

t.test('--target and --dealer credentials: not in the start-up lines, not in /status', async (t) => {
  const a = await dealer(t);
  const logs: string[] = [];
  const one = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    profile: '1.3',
    target: `http://operator:${SECRETS[0]}@${a.host}/base?token=${SECRETS[1]}&api_key=${SECRETS[2]}`,
    log: (l) => logs.push(l),
  });
  const status = (await request(`${one.adminUrl}/status`)).body.toString();
  await one.close();
  const many = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    profile: '1.3',
    dealers: [
      { name: 'a', url: `http://ops:${SECRETS[3]}@${a.host}/?access_token=${SECRETS[4]}` },
      { name: 'b', url: `http://${SECRETS[6]}@${a.host}/?sig=${SECRETS[5]}` },
    ],
    log: (l) => logs.push(l),
  });
  const statusMany = (await request(`${many.adminUrl}/status`)).body.toString();
  await many.close();
  const text = [...logs, status, statusMany].join('\n');
  for (const secret of SECRETS) t.notOk(text.includes(secret), `"${secret}" is not shown`);
  t.match(logs.join('\n'), /operator:\*\*\*@127\.0\.0\.1:\d+\/base\?token=\*\*\*&api_key=\*\*\*/, 'the banner says credentials were given');
  t.match(JSON.parse(status).target, /^http:\/\/operator:\*\*\*@127\.0\.0\.1:\d+\/base\?token=\*\*\*/, '/status too');
});

t.test('--otlp-endpoint credentials: not in the banner, nor in an export failure line', async (t) => {
  const collector = await startOtlpReceiver();
  const logs: string[] = [];
  let failed: (() => void) | undefined;
  const exportFailed = new Promise<void>((resolve) => (failed = resolve));
  const endpoint = new URL(collector.url);
  // The collector is closed before the first export: every export fails, and says so.
  await collector.close();
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: { OTEL_BSP_SCHEDULE_DELAY: '10' },
    otlpEndpoint: `http://otel:${SECRETS[0]}@${endpoint.host}/?token=${SECRETS[1]}`,
    log: (l) => {
      logs.push(l);
      if (l.includes('export to')) failed?.();
    },
  });
  t.teardown(() => rt.close());
  await request(`${rt.url}/.well-known/agent-card.json`);
  await exportFailed;
  const text = logs.join('\n');
  for (const secret of SECRETS.slice(0, 2)) t.notOk(text.includes(secret), `"${secret}" is not shown`);
  t.match(text, /traces: export to http:\/\/otel:\*\*\*@127\.0\.0\.1:\d+\/v1\/traces\?token=\*\*\* failed/);
});

t.test('a refused URL is quoted without its credentials', async (t) => {
  for (const [option, value] of [
    ['target', `ftp://u:${SECRETS[0]}@host/?token=${SECRETS[1]}`],
    ['otlpEndpoint', `ftp://u:${SECRETS[0]}@host/?token=${SECRETS[1]}`],
    ['dealers', [`a=ftp://u:${SECRETS[0]}@host/?token=${SECRETS[1]}`]],
  ] as const) {
    const err = await startRuntime({ port: 0, adminPort: 0, env: {}, [option]: value }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, OptionError, option);
    const message = (err as Error).message;
    for (const secret of SECRETS.slice(0, 2)) t.notOk(message.includes(secret), `${option}: "${secret}" is not quoted (${message})`);
  }
});
