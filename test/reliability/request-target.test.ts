// Only an origin-form target inside --target's base path reaches the dealer. An absolute-form
// target is reduced to its path (RFC 9112 §3.2.2: a server accepts it; the authority names this
// proxy, which has one dealer); dot segments are resolved, and one that climbs out of the base
// path is refused with 400, as is any target that is not a path.
import t, { type Test } from 'tap';
import { startRuntime } from '../../src/runtime.js';
import { rawJsonBody, sendRaw } from '../helpers/raw-socket.js';
import { startUpstream } from '../helpers/servers.js';

async function setUp(t: Test, base: string) {
  const dealer = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  const rt = await startRuntime({
    target: `${dealer.url}${base}`,
    port: 0,
    adminPort: 0,
    env: {},
    rewriteCard: false,
    profile: '1.3',
    allowHosts: ['other-vhost'],
  }); // the foreign Host is allowed: what is tested is the request target
  t.teardown(async () => {
    await rt.close();
    await dealer.close();
  });
  /** The request line's target the dealer got for `target`, or the proxy's status when none arrived. */
  const send = async (target: string): Promise<{ status: number; upstream?: string; reply: string }> => {
    const before = dealer.seen.length;
    const { reply } = await sendRaw(rt.url, [`GET ${target} HTTP/1.1\r\nhost: other-vhost\r\nconnection: close\r\n\r\n`]);
    return { status: Number(reply.slice(9, 12)), upstream: dealer.seen[before]?.url, reply };
  };
  return { send };
}

t.test('behind a base path: what the dealer gets for each target', async (t) => {
  const { send } = await setUp(t, '/dealer/v1');
  const forwarded: Array<[string, string]> = [
    ['/a2a?x=1', '/dealer/v1/a2a?x=1'],
    ['https://other-vhost/admin?q=2', '/dealer/v1/admin?q=2'],
    ['http://other-vhost', '/dealer/v1/'],
    ['/a/./b/../c', '/dealer/v1/a/c'],
    ['/a/%2e%2e/b', '/dealer/v1/b'],
    ['//host/x', '/dealer/v1/host/x'],
    ['/a2a/x%2Fy', '/dealer/v1/a2a/x%2Fy'],
    ['/a2a/..x%2F/b', '/dealer/v1/a2a/..x%2F/b'],
    ['/a/../b%2Fc', '/dealer/v1/b%2Fc'],
  ];
  for (const [target, expected] of forwarded) {
    const { status, upstream } = await send(target);
    t.equal(upstream, expected, `${target} → ${upstream} (${status})`);
  }
  // An encoded "/" or "\\" beside a dot segment: data to RFC 3986, a climb to a dealer that decodes it first.
  const encodedClimbs = ['/a2a/..%2F..%2Fx', '/a2a/..%2fsecret', '/a/%2e%2e%5Cx', '/a/.%2F..%2F..%2Fx', '/a/x%2F..'];
  for (const target of ['/../../other/secret', '/a/../../x', '/%2e%2e/x', '/..\\..\\x', 'https://other-vhost/../x', '*', 'ftp://x/y', ...encodedClimbs]) {
    const { status, upstream, reply } = await send(target);
    t.equal(upstream, undefined, `${target} never reaches the dealer`);
    t.equal(status, 400, `${target}: 400`);
    t.match(rawJsonBody(reply).error.message, /request target/, `${target}: the answer names the request target`);
  }
});

t.test('at the root: an absolute-form target or // never reaches the dealer as written', async (t) => {
  const { send } = await setUp(t, '');
  t.equal((await send('https://other-vhost/admin')).upstream, '/admin');
  t.equal((await send('//host/x')).upstream, '/host/x');
  t.equal((await send('/../etc/passwd')).status, 400);
  t.equal((await send('/a2a')).upstream, '/a2a', 'an ordinary path is forwarded as written');
  t.equal((await send('/a%2Fb/c%20d')).upstream, '/a%2Fb/c%20d', 'its escapes untouched');
});
