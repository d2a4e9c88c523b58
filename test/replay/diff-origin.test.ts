// `replay --diff` calls --target and nothing else, whatever a recording says: a recorded path that
// is not origin-form (`//host:port/x`, `/\host:port/x`, `/a/../x`, a query) is refused when the
// recording is read, with file:line and exit 2, before any request is sent; and the live URL is
// built from --target's origin with the proxy's own request-target rule.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRecording } from '../../src/recording/reader.js';
import { cli } from '../helpers/cli-run.js';
import { startUpstream } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-diff-origin-');

const exchange = (requestPath: string) =>
  JSON.stringify({
    type: 'exchange',
    at: '2030-01-01T00:00:00.000Z',
    duration_ms: 1,
    request: { path: requestPath, method: 'GetTask', id: 1, params: { id: 't-1' } },
    reply: { status: 200, headers: { 'content-type': 'application/json' }, body: { jsonrpc: '2.0', id: 1, result: { answer: 'recorded' } } },
  });

const answering = (answer: string) =>
  startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { answer } }));
  });

t.test('a recorded path that leaves --target is refused at read time; the other host is never called', async (t) => {
  const target = await answering('recorded');
  const elsewhere = await answering('secret from elsewhere');
  t.teardown(async () => {
    await target.close();
    await elsewhere.close();
  });
  const hostPort = new URL(elsewhere.url).host;
  for (const [i, bad] of [`//${hostPort}/x`, `/\\${hostPort}/x`, '/a2a/../x', '/a2a?x=1', '/a2a/..%2F..%2Fx'].entries()) {
    const file = path.join(dir, `bad-${i}.jsonl`);
    writeFileSync(file, `${exchange('/a2a')}\n${exchange(bad)}\n`);
    await t.rejects(
      readRecording(file),
      { message: new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: request\\.path is not an origin-form path`) },
      bad,
    );
    const run = await cli(['replay', '--diff', file, '--target', target.url]);
    t.equal(run.code, 2, `${bad}: exit 2`);
    t.match(run.err, `${file}:2: request.path`, `${bad}: the line is named`);
    t.notMatch(run.out + run.err, 'secret from elsewhere');
  }
  t.equal(elsewhere.seen.length, 0, 'the other host got no request');
  t.equal(target.seen.length, 0, 'nor did --target: the recording was refused before any request');
});

t.test('origin-form paths still go to --target under its base path', async (t) => {
  const target = await answering('recorded');
  t.teardown(() => target.close());
  const file = path.join(dir, 'good.jsonl');
  writeFileSync(file, `${exchange('/a2a')}\n${exchange('/a2a/x%2Fy')}\n`);
  const run = await cli(['replay', '--diff', file, '--target', `${target.url}/base/`]);
  t.equal(run.code, 0, run.out + run.err);
  t.same(
    target.seen.map((r) => r.url),
    ['/base/a2a', '/base/a2a/x%2Fy'],
  );
});
