// The recording as a file: read back bounded, every bad line reported with file:line (a line cut
// short, not JSON, nested too deep), never a crash; --record-max-bytes stops the recording with
// one message and whole lines only, while the proxy keeps answering.
import t from 'tap';
import { cli } from '../helpers/cli-run.js';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecording, readRecording, RecordingReadError } from '../../src/recording/reader.js';
import { startRuntime } from '../../src/runtime.js';
import { mockDealer, rpc, runtime, skillBody } from '../helpers/recording.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-recording-');
const file = path.join(dir, 'whole.jsonl');

await (async () => {
  const mock = await mockDealer(t);
  const proxy = await runtime(t, { target: mock.url, record: file });
  for (let i = 1; i <= 3; i++) await rpc(proxy.url, skillBody('dealer.information', {}, i));
  await proxy.close();
})();
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);

t.test('a recording cut short mid-line is reported with its line number, not a crash', async (t) => {
  t.equal(lines.length, 5, 'session, card, three exchanges');
  const cut = path.join(dir, 'cut.jsonl');
  writeFileSync(cut, lines.slice(0, 4).join('\n') + '\n' + lines[4]!.slice(0, 40));
  await t.rejects(
    readRecording(cut),
    new RecordingReadError(cut, [`${cut}:5: the recording ends mid-line (cut short while it was written?); remove the partial last line to replay the rest`]),
  );
  for (const args of [
    ['replay', cut, '--port', '0', '--admin-port', '0'],
    ['--target', `replay:${cut}`, '--port', '0', '--admin-port', '0'],
  ]) {
    const run = await cli(args);
    t.equal(run.code, 2, `aap-chaos ${args[0]} exits 2`);
    t.match(run.err, `aap-chaos: ${cut}:5: the recording ends mid-line`);
    t.notMatch(run.err, /\n\s+at .+:\d+:\d+/, 'no stack trace');
  }
  const drift = await cli(['replay', '--diff', cut, '--target', 'http://127.0.0.1:9']);
  t.equal(drift.code, 2);
  t.match(drift.err, `${cut}:5:`);
});

t.test('every malformed line is named at once; the reader is bounded in line size and depth', async (t) => {
  const text = [
    lines[0],
    '{"type":"exchange"',
    lines[1],
    '{"type":"exchange","request":{"method":"SendMessage","path":"/a2a"},"reply":{"status":99,"headers":{}}}',
    '['.repeat(40) + ']'.repeat(40),
    '{"type":"mystery"}',
    lines[2],
    '',
  ].join('\n');
  try {
    parseRecording('bad.jsonl', text, { maxFileBytes: 1e9, maxLineBytes: 1e6, maxDepth: 32 });
    t.fail('read a malformed recording');
  } catch (e) {
    t.type(e, RecordingReadError);
    const problems = (e as RecordingReadError).problems;
    t.match(problems[0], /^bad\.jsonl:2: not valid JSON \(/);
    t.same(problems.slice(1), [
      'bad.jsonl:4: reply.status is not an HTTP status',
      'bad.jsonl:5: the line nests deeper than 32 levels',
      'bad.jsonl:6: type "mystery" is not one of recording, card, exchange',
    ]);
  }
  t.throws(() => parseRecording('long.jsonl', lines.join('\n'), { maxFileBytes: 1e9, maxLineBytes: 200, maxDepth: 64 }), {
    message: /long\.jsonl:2: the line is longer than 200 bytes/,
  });
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  t.throws(() => parseRecording('deep.jsonl', deep + '\n'), { message: /deep\.jsonl:1: the line nests deeper than 64 levels/ });
});

t.test('--record-max-bytes: one stop message, whole lines only, the proxy keeps answering', async (t) => {
  const small = path.join(dir, 'small.jsonl');
  const mock = await mockDealer(t);
  const logged: string[] = [];
  const maxBytes = lines[0]!.length + lines[1]!.length + lines[2]!.length + 10;
  const proxy = await runtime(t, { target: mock.url, record: small, recordMaxBytes: maxBytes, log: (l) => logged.push(l) });
  for (let i = 1; i <= 4; i++) t.equal((await rpc(proxy.url, skillBody('dealer.information', {}, i))).json.id, i, `request ${i} answered`);
  await proxy.close();
  const stops = logged.filter((l) => l.startsWith('recording stopped'));
  t.same(stops, [`recording stopped: ${small} reached --record-max-bytes (${maxBytes} bytes); later exchanges are not recorded, the proxy keeps running`]);
  const kept = readFileSync(small, 'utf8');
  t.ok(kept.length <= maxBytes, `${kept.length} bytes kept`);
  t.ok(kept.endsWith('\n'), 'no partial line');
  t.equal((await readRecording(small)).exchanges.length, 1, 'the exchanges that fit');
});

t.test('a recording that cannot be opened is refused at start, naming the flag', async (t) => {
  await t.rejects(startRuntime({ port: 0, adminPort: 0, record: path.join(dir, 'missing-dir', 'x.jsonl') }), {
    message: /^--record: cannot open .*x\.jsonl for appending \(ENOENT\)$/,
  });
  const run = await cli(['--record', path.join(dir, 'missing-dir', 'x.jsonl'), '--port', '0', '--admin-port', '0']);
  t.equal(run.code, 2);
  t.match(run.err, '--record: cannot open');
  const badSpeed = await cli(['replay', file, '--speed', '0', '--port', '0', '--admin-port', '0']);
  t.equal(badSpeed.code, 2);
  t.match(badSpeed.err, '--speed: "0" is not a number greater than 0');
  const noPass = await cli(['replay', file, '--on-miss', 'pass', '--port', '0', '--admin-port', '0']);
  t.equal(noPass.code, 2);
  t.match(noPass.err, '--on-miss pass: needs --target URL');
});
