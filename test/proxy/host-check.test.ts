// DNS rebinding: listening on loopback, the proxy answers only loopback Host names and the ones
// --allow-host names; any other Host gets 421 and never reaches the dealer.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { startRuntime } from '../../src/runtime.js';
import { HostCheck } from '../../src/http/host-check.js';
import { request, skillRequest, startUpstream } from '../helpers/servers.js';
import { BIN, runCli } from '../reliability/cli-run.js';

async function dealerAndProxy(t: Test, allowHosts?: string[]) {
  const dealer = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  const rt = await startRuntime({ target: dealer.url, port: 0, adminPort: 0, allowHosts, log: () => {} });
  t.teardown(async () => {
    await rt.close();
    await dealer.close();
  });
  const port = new URL(rt.url).port;
  const send = (host: string) => request(`${rt.url}/a2a`, { body: skillRequest('inventory.search'), headers: { host, 'content-type': 'application/json' } });
  return { dealer, rt, port, send };
}

t.test('on loopback, a foreign Host gets 421 naming --allow-host, and the dealer sees nothing', async (t) => {
  const { dealer, rt, port, send } = await dealerAndProxy(t);
  const before = dealer.seen.length; // the card, read at start
  const refused = await send(`rebound.example:${port}`);
  t.equal(refused.status, 421);
  t.equal(refused.headers['x-aap-chaos-source'], 'proxy');
  const body = JSON.parse(refused.body.toString());
  t.equal(body.error.code, -32600);
  t.match(body.error.message, /Host "rebound\.example:\d+" is not a name of this proxy.*--allow-host rebound\.example/);
  t.equal(dealer.seen.length, before, 'nothing reached the dealer');
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `app.localhost:${port}`, `[::1]:${port}`, 'LOCALHOST'])
    t.equal((await send(host)).status, 200, host);
  t.equal(dealer.seen.length, before + 5);
  t.equal(rt.journal.all().length, 5, 'refused requests are not journaled: there is no request to decide on');
});

t.test('--allow-host names pass, exactly or as *.subdomains', async (t) => {
  const { send } = await dealerAndProxy(t, ['proxy.internal', '*.staging.test']);
  t.equal((await send('proxy.internal:8080')).status, 200);
  t.equal((await send('PROXY.internal')).status, 200, 'case-insensitive');
  t.equal((await send('a.b.staging.test')).status, 200);
  t.equal((await send('staging.test')).status, 421, '*.NAME covers subdomains only');
  t.equal((await send('proxy.internal.evil.example')).status, 421);
});

t.test('a Host that passed before does not let a foreign one through after it', async (t) => {
  const check = new HostCheck('127.0.0.1', ['proxy.internal']);
  t.equal(check.refusal('localhost:8080'), undefined);
  t.equal(check.refusal('localhost:8080'), undefined, 'the same Host again');
  t.match(check.refusal('rebound.example:8080'), /not a name of this proxy/);
  t.equal(check.refusal('proxy.internal'), undefined);
  t.match(check.refusal('localhost.evil.example'), /not a name of this proxy/);
  t.equal(check.refusal('localhost:8080'), undefined);
});

t.test('listening on another address, every Host passes (its names cannot be known)', async (t) => {
  t.equal(new HostCheck('0.0.0.0').refusal('anything.example'), undefined);
  t.equal(new HostCheck('10.1.2.3').refusal('anything.example'), undefined);
  t.match(new HostCheck('::1').refusal('anything.example'), /not a name of this proxy/);
  t.equal(new HostCheck('127.0.0.1').refusal(undefined), undefined, 'no Host (HTTP/1.0): no browser sends that');
});

t.test('--allow-host on the command line: checked like every flag, and in force', async (t) => {
  const bad = await runCli(['--allow-host', 'not a host', '--port', '0', '--admin-port', '0']);
  t.equal(bad.code, 2);
  t.match(bad.err, /--allow-host: .*"not a host", which is not a host name/);
  await t.rejects(startRuntime({ port: 0, adminPort: 0, allowHosts: ['x/y'] }), /option allowHosts \(flag --allow-host\)/);

  const child = spawn(process.execPath, [BIN, '--allow-host', 'a.test,b.test', '--allow-host', 'c.test', '--port', '0', '--admin-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c;
      const m = /proxy on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  for (const host of ['a.test', 'b.test', 'c.test']) t.not((await request(`${url}/.well-known/agent-card.json`, { headers: { host } })).status, 421, host);
  t.equal((await request(`${url}/.well-known/agent-card.json`, { headers: { host: 'd.test' } })).status, 421);
});
