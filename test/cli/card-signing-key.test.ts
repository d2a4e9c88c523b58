// --card-signing-key and --mock-sign-card: the start-up lines name the key and the JWKS; a key
// file that cannot sign cards (missing, a FIFO, too large, not a key, a public key, an
// unsupported curve or type) is refused with one line naming the flag and the file, exit 2,
// before anything listens. Every case is checked through the loader the run uses, in this process,
// and a few through the command line (one process per case would take minutes on a loaded machine).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli as runCli } from '../helpers/cli-run.js';
import { KeyFileError, loadCardSigningKey } from '../../src/common/card-key-file.js';
import { keyFile } from '../helpers/card-signing.js';
import { tempDir } from '../helpers/temp-dir.js';

const cli = (args: string[]) => runCli(['--port', '0', '--admin-port', '0', ...args], { killWhenOut: 'public key at' });

t.test('the start-up lines name the key and where its public half is served', async (t) => {
  const { file } = await keyFile(t, 'ES256');
  const run = await cli(['--card-signing-key', file]);
  t.match(
    run.out,
    new RegExp(
      `agent cards signed with --card-signing-key ${file} \\(ES256, kid [A-Za-z0-9_-]{43}\\); public key at http://127\\.0\\.0\\.1:\\d+/\\.well-known/aap-chaos/jwks\\.json`,
    ),
  );
});

t.test('a key file that cannot sign cards is one line, exit 2', async (t) => {
  const dir = tempDir(t, 'aap-chaos-keys-');
  const write = (name: string, text: string | Buffer) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const fifo = path.join(dir, 'key.fifo');
  execFileSync('mkfifo', [fifo]);
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
  const x25519 = generateKeyPairSync('x25519');
  const es = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const cases: [string, string, RegExp][] = [
    ['--card-signing-key', path.join(dir, 'missing.pem'), /no such file$/],
    ['--card-signing-key', fifo, /is a FIFO \(named pipe\), not a regular file; a key is read from a regular file only$/],
    ['--card-signing-key', write('big.pem', Buffer.alloc(70_000, 'a')), /is 70000 bytes, more than a key file holds \(65536 at most\)$/],
    ['--card-signing-key', write('notes.txt', 'hello'), /holds neither a PKCS#8 PEM private key .* nor a JWK$/],
    [
      '--card-signing-key',
      write('pub.pem', es.publicKey.export({ type: 'spki', format: 'pem' }) as string),
      /holds a public key: signing needs the private key$/,
    ],
    ['--card-signing-key', write('pub.jwk', JSON.stringify(es.publicKey.export({ format: 'jwk' }))), /holds a public JWK: signing needs the private key/],
    ['--card-signing-key', write('sec1.pem', es.privateKey.export({ type: 'sec1', format: 'pem' }) as string), /holds a EC PRIVATE KEY, not PKCS#8/],
    ['--card-signing-key', write('p384.pem', p384.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), /unsupported curve secp384r1/],
    ['--mock-sign-card', write('x25519.pem', x25519.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), /unsupported type x25519/],
  ];
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [flag, file, message] of cases) {
    const refused = await loadCardSigningKey(file, flag).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(refused instanceof KeyFileError, `${path.basename(file)}: refused`);
    const text = (refused as Error).message;
    t.equal(text.split('\n').length, 1, `${path.basename(file)}: one line`);
    t.match(text, new RegExp(`^${flag}: ${escaped(file)} `), `${path.basename(file)}: names the flag and the file`);
    t.match(text, message);
  }
  // Through the command line: exit 2, the one line, nothing listening (a FIFO must not hang it).
  for (const [flag, file, message] of [cases[1]!, cases[4]!, cases[8]!]) {
    const run = await cli([flag, file]);
    t.equal(run.code, 2, `${path.basename(file)}: exit 2`);
    t.equal(run.err.trim().split('\n').length, 1, `${path.basename(file)}: one line`);
    t.match(run.err.trim(), new RegExp(`^aap-chaos: ${flag}: ${escaped(file)} `));
    t.match(run.err.trim(), message);
    t.notMatch(run.out, /proxy on/, 'nothing listened');
  }
});
