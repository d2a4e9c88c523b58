// HTTPS for buyers: with --tls-cert/--tls-key the proxy (and with --admin-tls-* the admin API)
// serves TLS with a certificate from a throwaway CA; the real @a2a-js/sdk client, trusting only
// that CA, reads the rewritten card (https:// interface URLs on the proxy) and calls through it.
// A bad or mismatched file is one line and exit 2; SIGHUP swaps in a renewed certificate.
import t, { type Test } from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { startRuntime } from '../../src/runtime.js';
import type { JournalEntry } from '../../src/journal/entry.js';
import { opensslMissing } from '../helpers/debian-services.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';
import { sendSkill } from '../helpers/sdk-buyer.js';
import { BIN, runCli } from '../reliability/cli-run.js';

const skip = opensslMissing();

function sdkBuyerTrusting(ca: TestCa, url: string) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: ca.fetch })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: ca.fetch }),
  });
  return new ClientFactory(options).createFromUrl(url);
}

/** The SHA-256 fingerprint of the certificate a TLS listener presents now. */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

t.test('the SDK client calls through the proxy over HTTPS, trusting the test CA only', { skip }, async (t) => {
  const ca = makeTestCa(t);
  t.teardown(() => ca.close());
  const proxyPair = ca.issue('proxy');
  const adminPair = ca.issue('admin');
  const runtime = await startRuntime({
    port: 0,
    adminPort: 0,
    tlsCert: proxyPair.cert,
    tlsKey: proxyPair.key,
    adminTlsCert: adminPair.cert,
    adminTlsKey: adminPair.key,
  });
  t.teardown(() => runtime.close());
  const seen: JournalEntry[] = [];
  runtime.events.on('request', (e) => seen.push(e));
  t.match(runtime.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  t.match(runtime.adminUrl, /^https:\/\//);

  const card = (await (await ca.fetch(`${runtime.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Array<{ url: string }> };
  t.ok(card.supportedInterfaces.length > 0);
  for (const i of card.supportedInterfaces) t.ok(i.url.startsWith(`${runtime.url}/`), `the card advertises the proxy over https: ${i.url}`);

  const buyer = await sdkBuyerTrusting(ca, runtime.url);
  const reply = await sendSkill(buyer, 'inventory.search', { filters: { make: ['Honda'] }, pagination: { skip: 0, limit: 2 } });
  t.ok(reply.ok, 'the SDK call succeeds over TLS');
  t.ok(
    seen.some((e) => e.skill === 'inventory.search'),
    'and it went through the proxy',
  );

  const status = await ca.fetch(`${runtime.adminUrl}/status`);
  t.equal(status.status, 200, 'the admin API answers over HTTPS');
  await t.rejects(fetch(`${runtime.url}/.well-known/agent-card.json`), 'a client that does not trust the CA is refused');
});

t.test('bad TLS files: one line naming the flag, exit 2, nothing listens', { skip }, async (t) => {
  const ca = makeTestCa(t);
  t.teardown(() => ca.close());
  const a = ca.issue('a');
  const b = ca.issue('b');
  const notPem = path.join(ca.dir, 'not-a-key.pem');
  writeFileSync(notPem, 'this is not a key\n');
  const cases: Array<[string, string[], RegExp]> = [
    ['a key file that is not PEM', ['--tls-cert', a.cert, '--tls-key', notPem], /^aap-chaos: --tls-key: .*not-a-key\.pem holds no PEM private key/],
    [
      'a key of another certificate',
      ['--tls-cert', a.cert, '--tls-key', b.key],
      /^aap-chaos: --tls-key: .*b\.key is not the key of the certificate in .*a\.pem/,
    ],
    ['a missing file', ['--tls-cert', a.cert, '--tls-key', path.join(ca.dir, 'missing.key')], /^aap-chaos: --tls-key: .*missing\.key: no such file/],
    [
      'an EC key with an RSA certificate (OpenSSL checks a pair of one type only)',
      ['--tls-cert', rsaCertificate(ca.dir), '--tls-key', a.key],
      /^aap-chaos: --tls-key: .*a\.key is not the key of the certificate in .*rsa\.pem/,
    ],
    ['a certificate without its key', ['--admin-tls-cert', a.cert], /^aap-chaos: --admin-tls-cert needs --admin-tls-key too/],
  ];
  for (const [what, flags, expected] of cases) {
    const run = await runCli(['--port', '0', '--admin-port', '0', ...flags], 30_000);
    t.equal(run.code, 2, `${what}: exit 2`);
    const lines = run.err.trim().split('\n');
    t.equal(lines.length, 1, `${what}: one line`);
    t.match(lines[0], expected, what);
    t.notMatch(run.err, /\n\s+at /, `${what}: no stack trace`);
  }
});

/** A self-signed RSA certificate (its key is thrown away): the test CA's keys are EC. */
function rsaCertificate(dir: string): string {
  const file = path.join(dir, 'rsa.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'rsa.key'), '-out', file, '-days', '1', '-subj', '/CN=127.0.0.1'],
    {
      stdio: 'pipe',
    },
  );
  return file;
}

/** The built CLI as a child process; `waitFor` resolves with the first match in its stdout (or stderr). */
function runProxy(t: Test, flags: string[]) {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--admin-port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const waitFor = (pattern: RegExp, stream: 'out' | 'err' = 'out') =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(stream === 'out' ? out : err);
        if (!m) return;
        child.stdout.off('data', check);
        child.stderr.off('data', check);
        child.off('exit', exited);
        resolve(m);
      };
      const exited = (code: number | null) => reject(new Error(`the proxy exited (${code}): ${err}`));
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.once('exit', exited);
      check();
    });
  return { child, waitFor };
}

/** A CA, a certificate in place (live.pem, live.key) and a renewed one to copy over it. */
function liveCertificate(t: Test) {
  const ca = makeTestCa(t);
  t.teardown(() => ca.close());
  const first = ca.issue('first');
  const renewed = ca.issue('renewed');
  const cert = path.join(ca.dir, 'live.pem');
  const key = path.join(ca.dir, 'live.key');
  copyFileSync(first.cert, cert);
  copyFileSync(first.key, key);
  return { ca, cert, key, renewed };
}

t.test('SIGHUP loads a renewed certificate for new connections; a bad one keeps the old', { skip }, async (t) => {
  const { ca, cert, key, renewed } = liveCertificate(t);
  const { child, waitFor } = runProxy(t, ['--tls-cert', cert, '--tls-key', key]);
  const port = Number((await waitFor(/proxy on https:\/\/127\.0\.0\.1:(\d+)/))[1]);
  const before = await servedFingerprint(port, ca.ca);

  writeFileSync(key, 'half-written\n');
  child.kill('SIGHUP');
  await waitFor(/SIGHUP: certificate not reloaded, the one in use stays: --tls-key/, 'err');
  t.equal(await servedFingerprint(port, ca.ca), before, 'a bad key file keeps the certificate in use');

  copyFileSync(renewed.cert, cert);
  copyFileSync(renewed.key, key);
  child.kill('SIGHUP');
  await waitFor(/SIGHUP: proxy certificate reloaded/);
  const after = await servedFingerprint(port, ca.ca);
  t.not(after, before, 'new connections get the renewed certificate');
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
});

t.test('with --watch a renewed certificate is loaded when its files change', { skip }, async (t) => {
  const { ca, cert, key, renewed } = liveCertificate(t);
  const { child, waitFor } = runProxy(t, ['--watch', '--tls-cert', cert, '--tls-key', key]);
  const port = Number((await waitFor(/proxy on https:\/\/127\.0\.0\.1:(\d+)/))[1]);
  const before = await servedFingerprint(port, ca.ca);
  copyFileSync(renewed.key, key);
  copyFileSync(renewed.cert, cert);
  await waitFor(/certificate file changed: proxy certificate reloaded/);
  t.not(await servedFingerprint(port, ca.ca), before, 'new connections get the renewed certificate');
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
});

t.test('a reload with a mismatched pair, or a FIFO at the key path under --watch, keeps the certificate and the process', { skip }, async (t) => {
  const { ca, cert, key } = liveCertificate(t);
  const { child, waitFor } = runProxy(t, ['--watch', '--tls-cert', cert, '--tls-key', key]);
  const port = Number((await waitFor(/proxy on https:\/\/127\.0\.0\.1:(\d+)/))[1]);
  const before = await servedFingerprint(port, ca.ca);

  const good = readFileSync(cert);
  copyFileSync(rsaCertificate(ca.dir), cert);
  await waitFor(/certificate file changed: certificate not reloaded, the one in use stays: --tls-key: .*live\.key is not the key of the certificate/, 'err');
  t.equal(await servedFingerprint(port, ca.ca), before, 'an RSA certificate beside the EC key is refused; the old pair serves');
  writeFileSync(cert, good);

  // A FIFO renamed onto the key: a plain read would wait for a writer forever, and with it the process.
  const fifo = path.join(ca.dir, 'fifo.key');
  execFileSync('mkfifo', [fifo]);
  renameSync(fifo, key);
  await waitFor(/certificate not reloaded, the one in use stays: --tls-key: .*live\.key: is a FIFO \(named pipe\), not a regular file/, 'err');
  t.equal(await servedFingerprint(port, ca.ca), before, 'the process still answers, with the certificate in use');
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
});
