// An https:// dealer with a self-signed certificate: refused with a message that names --ca and
// --insecure, and reached with either.
import t from 'tap';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startProxy } from '../../src/proxy/server.js';
import { request, skillRequest } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

let openssl = true;
try {
  execFileSync('openssl', ['version'], { stdio: 'ignore' });
} catch {
  openssl = false;
}

t.test(
  'self-signed dealer certificate: refused with advice, then --ca and --insecure',
  { skip: openssl ? false : 'openssl is not installed (apt-get install openssl)' },
  async (t) => {
    const dir = tempDir(t, 'aap-chaos-tls-');
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const dealer = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
    });
    await new Promise<void>((r) => dealer.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => (dealer.closeAllConnections(), dealer.close(() => r()))));
    const target = `https://127.0.0.1:${(dealer.address() as AddressInfo).port}`;
    const call = async (tls?: { ca?: string; insecure?: boolean }) => {
      const proxy = await startProxy({ target, port: 0, profile: '1.3', tls });
      try {
        return await request(proxy.url + '/a2a', { body: skillRequest('dealer.information'), headers: { 'content-type': 'application/json' } });
      } finally {
        await proxy.close();
      }
    };
    const refused = await call();
    t.equal(refused.status, 502);
    const message = JSON.parse(refused.body.toString()).error.message;
    t.match(message, /DEPTH_ZERO_SELF_SIGNED_CERT/);
    t.match(message, /--ca FILE/);
    t.match(message, /--insecure/);
    t.equal((await call({ ca: readFileSync(cert, 'utf8') })).status, 200, '--ca trusts it');
    t.equal((await call({ insecure: true })).status, 200, '--insecure skips verification');
  },
);
