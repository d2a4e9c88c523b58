// Every bad value on the command line ends with one line naming the flag and the value, exit 2,
// over a real process; startChaos() refuses the same values with the option's name.
import t from 'tap';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { startChaos } from '../../src/index.js';

const BIN = fileURLToPath(new URL('../../bin/aap-chaos.js', import.meta.url));

function cli(args: string[], opts: { pipeToHead?: boolean } = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
      // What `| head -1` does: read one line, then close the pipe.
      if (opts.pipeToHead && out.includes('\n')) child.stdout.destroy();
    });
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const BAD_VALUES: [string[], RegExp][] = [
  [['--seed', 'abc'], /^aap-chaos: --seed: "abc" is not a whole number/],
  [['--client-key', 'cookie'], /^aap-chaos: --client-key: "cookie" is not ip or header:NAME/],
  [['--max-inspect-bytes', '-1'], /^aap-chaos: --max-inspect-bytes: "-1" is not a whole number of bytes/],
  [['--journal-ring', '0'], /^aap-chaos: --journal-ring: "0" is not a whole number ≥ 1/],
  [['--watch'], /^aap-chaos: --watch: needs --scenario FILE to watch, got no --scenario/],
  [['--watch', '--scenario', 'demo'], /^aap-chaos: --watch: needs --scenario FILE .*"demo" \(a built-in scenario\)/],
  [['--port', 'abc'], /^aap-chaos: --port: "abc" is not a port number/],
  [['--admin-port', 'abc'], /^aap-chaos: --admin-port: "abc" is not a port number/],
  [['--target', 'notaurl'], /^aap-chaos: --target: "notaurl" is not a URL/],
  [['--drain-timeout', '-5s'], /^aap-chaos: --drain-timeout: "-5s" is not a duration/],
  [['--upstream-timeout', 'soon'], /^aap-chaos: --upstream-timeout: "soon" is not a duration/],
  [['--stream-idle-timeout', 'later'], /^aap-chaos: --stream-idle-timeout: "later" is not a duration/],
];

for (const [args, message] of BAD_VALUES) {
  t.test(`${args.join(' ')}: one line, exit 2`, async (t) => {
    // The other port defaults are left alone on purpose: a bad value must stop the run before any listener opens.
    const r = await cli([...args, ...(args.includes('--port') ? [] : ['--port', '0']), ...(args.includes('--admin-port') ? [] : ['--admin-port', '0'])]);
    t.equal(r.code, 2);
    t.match(r.err, message);
    t.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
    t.equal(r.out, '', 'nothing started');
  });
}

async function holdPort(t: import('tap').Test): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as net.AddressInfo).port;
}

t.test('a busy port names the listener and the flag that moves it', async (t) => {
  const port = await holdPort(t);
  const proxy = await cli(['--port', String(port), '--admin-port', '0']);
  t.equal(proxy.code, 2);
  t.match(proxy.err, new RegExp(`^aap-chaos: the proxy cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use; choose another with --port`));
  const admin = await cli(['--port', '0', '--admin-port', String(port)]);
  t.equal(admin.code, 2);
  t.match(admin.err, new RegExp(`^aap-chaos: the admin API cannot listen on 127\\.0\\.0\\.1:${port}: .*--admin-port`));
  await t.rejects(startChaos({ port }), /the proxy cannot listen .* --port \(library: port/);
});

t.test('mock: --help describes each option; a bad flag points to aap-chaos mock --help', async (t) => {
  const help = await cli(['mock', '--help']);
  t.equal(help.code, 0);
  for (const [flag, words] of [
    ['--port', /port of the mock dealer/],
    ['--host', /address of the mock dealer/],
    ['--profile', /AAP profile the dealer speaks/],
    ['--mock-streaming', /SendStreamingMessage/],
    ['--inventory', /JSON inventory file/],
    ['--seed', /seed of the generated inventory/],
  ] as const) {
    t.match(help.out, flag);
    t.match(help.out, words, `${flag} is described`);
  }
  const bogus = await cli(['mock', '--bogus']);
  t.equal(bogus.code, 2);
  t.match(bogus.err, /Unknown argument: bogus/);
  t.match(bogus.err, 'Run "aap-chaos mock --help" for usage.');
  const port = await cli(['mock', '--port', 'abc']);
  t.equal(port.code, 2);
  t.match(port.err, /^aap-chaos: --port: "abc" is not a port number/);
});

t.test('a closed stdout (| head -1) ends quietly', async (t) => {
  for (const args of [['scenarios'], ['--help']]) {
    const r = await cli(args, { pipeToHead: true });
    t.notMatch(r.err, /EPIPE|\n\s+at /, `${args.join(' ')}: no stack trace`);
    t.equal(r.err, '', `${args.join(' ')}: nothing on stderr`);
  }
});

t.test('startChaos validates every option like its flag', async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ port: 'abc' }, /option port \(flag --port\): "abc" is not a port number/],
    [{ adminPort: -1 }, /option adminPort \(flag --admin-port\): -1 is not a port number/],
    [{ seed: Number.NaN }, /option seed \(flag --seed\): NaN is not a whole number/],
    [{ clientKey: 'cookie' }, /option clientKey \(flag --client-key\): "cookie" is not ip or header:NAME/],
    [{ maxInspectBytes: -1 }, /option maxInspectBytes .* -1 is not a whole number of bytes/],
    [{ journalRing: 0 }, /option journalRing .* 0 is not a whole number ≥ 1/],
    [{ target: 'notaurl' }, /option target .* "notaurl" is not a URL/],
    [{ drainTimeoutMs: -5 }, /option drainTimeoutMs .* -5 is not a duration/],
    [{ streamIdleTimeoutMs: -1 }, /option streamIdleTimeoutMs \(flag --stream-idle-timeout\): -1 is not a duration/],
    [{ profile: '3.0' }, /option profile .* "3\.0" is not one of auto, 1\.3, 2\.0/],
    [{ mock: { profile: '9' } }, /option mock\.profile \(flag --mock-profile\): "9"/],
    // The options without a flag are named alone.
    [{ fastPath: 'yes' }, /^option fastPath: "yes" is not true or false$/],
    [{ eventsBufferBytes: -1 }, /^option eventsBufferBytes: -1 is not a whole number of bytes/],
  ];
  for (const [opts, message] of cases) await t.rejects(startChaos(opts), message, JSON.stringify(opts));
  // A duration string is what the flag takes; the library accepts it in the same form.
  const chaos = await startChaos({ upstreamTimeoutMs: '1s' as unknown as number });
  await chaos.close();
});
