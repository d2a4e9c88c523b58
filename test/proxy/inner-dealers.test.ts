// The dealers a run starts itself — the embedded mock, and the replay dealer of `--target
// replay:FILE` — listen on loopback ports of their own. They answer only loopback Host names, as
// the proxy does: a web page re-pointed at 127.0.0.1 (DNS rebinding) that finds such a port gets
// 421 and nothing else; in spy mode (`--on-miss pass`) nothing is relayed to the live dealer or
// recorded for it. Through the proxy, every request still arrives.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startRuntime } from '../../src/runtime.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Where the run's own dealer listens, from its first start-up line. */
const innerUrl = (logs: string[]) => /proxy on .* at (http:\/\/127\.0\.0\.1:\d+)/.exec(logs.join('\n'))![1]!;
const send = (url: string, host: string) =>
  request(`${url}/a2a`, { body: skillRequest('inventory.search'), headers: { host, 'content-type': 'application/json' } });

t.test('the embedded mock answers a foreign Host with 421', async (t) => {
  const logs: string[] = [];
  const rt = await startRuntime({ port: 0, adminPort: 0, env: {}, log: (l) => logs.push(l) });
  t.teardown(() => rt.close());
  const mock = innerUrl(logs);
  const port = new URL(mock).port;
  const refused = await send(mock, `rebound.example:${port}`);
  t.equal(refused.status, 421);
  t.match(JSON.parse(refused.body.toString()).error, { code: -32600, message: /Host "rebound\.example:\d+" is not a name of this dealer/ });
  t.equal((await send(mock, `127.0.0.1:${port}`)).status, 200, 'a loopback Host is answered');
  t.equal((await send(rt.url, 'localhost')).status, 200, 'and so is the proxy, which calls it');
});

t.test('in spy mode the replay dealer relays and records nothing for a foreign Host', async (t) => {
  const live = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","id":1,"result":{"from":"live"}}');
  });
  t.teardown(() => live.close());
  const file = path.join(tempDir(t, 'aap-chaos-inner-'), 'spy.jsonl');
  const logs: string[] = [];
  const rt = await startRuntime({
    port: 0,
    adminPort: 0,
    env: {},
    profile: '1.3',
    rewriteCard: false,
    target: `replay:${file}`,
    replay: { onMiss: 'pass', passTarget: live.url },
    log: (l) => logs.push(l),
  });
  t.teardown(() => rt.close());
  const replay = innerUrl(logs);
  const before = live.seen.length;
  const refused = await send(replay, 'rebound.example');
  t.equal(refused.status, 421);
  t.equal(live.seen.length, before, 'nothing was relayed to the live dealer');
  const relayed = await send(rt.url, '127.0.0.1');
  t.equal(relayed.status, 200, 'through the proxy the request is relayed');
  t.equal(live.seen.length, before + 1);
  await rt.close();
  t.equal(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"exchange"')).length,
    1,
    'only the proxied exchange was recorded',
  );
});
