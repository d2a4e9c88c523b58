// Files an operator names on the command line are read as regular files only, bounded in size:
// a FIFO at the path (whose open and read wait for a writer forever) is refused at once with one
// line naming the flag or command and what the file is — never a hang — and so is a device, or a
// file past the reader's size limit. Each reader is called in this process (a hang would stop the
// file: tap's timeout fails it), and three commands end to end show the one line and exit 2.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readServerTls } from '../../src/control/server-tls.js';
import { loadBaseline } from '../../src/exam/baseline.js';
import { readJournal } from '../../src/journal/read-journal.js';
import { loadInventoryFile } from '../../src/mock/inventory-file.js';
import { readRecording } from '../../src/recording/reader.js';
import { readScenarioFileText } from '../../src/scenario/file-text.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeTestCa } from '../helpers/test-ca.js';
import { runCli } from './cli-run.js';

const dir = tempDir(t, 'aap-chaos-operator-files-');
const fifo = path.join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const ca = makeTestCa(t);
t.teardown(() => ca.close());
const { cert, key } = ca.issue('server');
/** Over the PEM readers' limit (1 MiB), yet a PEM file by its first line. */
const hugePem = path.join(dir, 'huge.pem');
writeFileSync(hugePem, `-----BEGIN CERTIFICATE-----\n${'A'.repeat(2 * 1024 * 1024)}\n`);

const FIFO = /fifo: is a FIFO \(named pipe\), not a regular file/;

t.test('each reader refuses a FIFO, a device or an oversized file at once, naming it', async (t) => {
  t.throws(() => readServerTls({ tlsCert: fifo, tlsKey: key }), { message: /^--tls-cert: .*fifo: is a FIFO \(named pipe\), not a regular file/ });
  t.throws(() => readServerTls({ tlsCert: cert, tlsKey: fifo }), { message: /^--tls-key: .*fifo: is a FIFO/ });
  t.throws(() => readServerTls({ tlsCert: hugePem, tlsKey: key }), {
    message: /^--tls-cert: .*huge\.pem: is \d+ bytes, more than the 1048576 bytes a PEM file may have/,
  });
  t.throws(() => readServerTls({ adminTlsCert: cert, adminTlsKey: '/dev/zero' }), {
    message: /^--admin-tls-key: \/dev\/zero: is a device, not a regular file/,
  });
  t.throws(() => loadInventoryFile(fifo), { message: /^--inventory: .*fifo: is a FIFO/ });
  await t.rejects(readRecording(fifo), { message: FIFO });
  await t.rejects(readJournal(fifo), { message: /cannot read the journal: is a FIFO/ });
  await t.rejects(loadBaseline(fifo, []), { message: /^--baseline: .*fifo: is a FIFO/ });
  const scenario = await readScenarioFileText(fifo);
  t.match(scenario, { ok: false, message: /^is a FIFO/ }, 'a scenario file (--scenario, --watch, validate, ctl use)');
});

/** Long enough for a slow start on a busy machine; a hang on the FIFO never ends at all. */
const BOUND_MS = 60_000;

const commands: Array<[string, string[], RegExp]> = [
  ['--ca', ['--ca', fifo, '--target', 'https://127.0.0.1:1', '--port', '0', '--admin-port', '0'], /^aap-chaos: --ca: .*fifo: is a FIFO/],
  ['replay', ['replay', fifo, '--port', '0'], FIFO],
  ['ctl use', ['ctl', 'use', fifo, '--admin', 'http://127.0.0.1:1'], FIFO],
];

for (const [what, args, message] of commands) {
  t.test(`${what} FIFO: one line, at once`, async (t) => {
    const run = await runCli(args, BOUND_MS);
    t.not(run.code, null, `it ended (${run.ms} ms)`);
    t.not(run.code, 0);
    t.match(run.err, message);
    t.notMatch(run.out + run.err, /\n\s+at /, 'no stack trace');
  });
}
