// HTTP/1.1 pipelining: a connection fault hits only its own exchange; replies queued before it
// still reach the buyer, and a cut reply always closes the connection.
import t from 'tap';
import net from 'node:net';
import { harness } from '../helpers/chaos-harness.js';
import { skillRequest } from '../helpers/servers.js';

const SCENARIO = `rules:
  - { id: slow, match: { skill: dealer.information }, delay: { ms: 50 } }
  - { id: cut, match: { skill: inventory.search }, network: { truncate_bytes: 40 } }
  - { id: rst, match: { skill: inventory.facets }, network: reset }
  - { id: stall, match: { skill: lead.submit }, delay: { ms: 400 } }
  - { id: hang, match: { skill: inventory.vehicle }, network: { hang_ms: 20 } }
`;

function post(host: string, skill: string, id: number): string {
  const body = skillRequest(skill, {}, id);
  return `POST /a2a HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Writes all requests at once on one socket; resolves with every byte received and how the socket ended. */
function pipeline(url: string, requests: Array<[string, number]>, boundMs = 10_000): Promise<{ text: string; ended: 'closed' | 'reset' | 'still open' }> {
  const { hostname, port, host } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = (ended: 'closed' | 'reset' | 'still open') => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), ended });
    };
    const timer = setTimeout(() => done('still open'), boundMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => done('reset'));
    socket.on('end', () => done('closed'));
    socket.write(requests.map(([skill, id]) => post(host, skill, id)).join(''));
  });
}

/** The body of one raw reply, with chunked framing removed. */
function bodyOf(reply: string): string {
  const split = reply.indexOf('\r\n\r\n');
  let rest = reply.slice(split + 4);
  if (!/transfer-encoding: chunked/i.test(reply.slice(0, split))) return rest;
  let out = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

t.test('a truncated reply queued behind a delayed one closes the connection', async (t) => {
  const h = await harness(t, SCENARIO);
  const started = Date.now();
  const got = await pipeline(
    h.proxy.url,
    [
      ['dealer.information', 1],
      ['inventory.search', 2],
      ['inventory.vehicle', 3],
    ],
    5_000,
  );
  t.not(got.ended, 'still open', 'the connection is closed after the cut reply');
  t.ok(Date.now() - started < 4_000, 'within the bound');
  const replies = got.text.split('HTTP/1.1 ').slice(1);
  t.equal(replies.length, 2, 'the delayed reply, then the cut one; the third request is never answered on this connection');
  t.match(replies[0], /"id":1/, 'the delayed reply arrives whole');
  t.notMatch(replies[1], /"id":2.*\}\}\}/s, 'the second reply is cut');
});

t.test('network: reset on a pipelined request leaves the earlier reply intact', async (t) => {
  const h = await harness(t, SCENARIO);
  const got = await pipeline(h.proxy.url, [
    ['dealer.information', 1],
    ['inventory.facets', 2],
  ]);
  t.not(got.ended, 'still open');
  const replies = got.text.split('HTTP/1.1 ').slice(1);
  t.equal(replies.length, 1, 'exactly the earlier reply');
  t.equal(JSON.parse(bodyOf(replies[0] ?? '')).id, 1, 'the earlier, unfaulted reply is complete and valid JSON');
});

// A hang that ends while the reply before it is still on its way: the close must wait for its turn
// and then happen. Node 24 no longer closes the connection of a reply destroyed before its turn;
// it stalled every later reply on the connection until the buyer gave up.
t.test('network: a bounded hang queued behind a slower reply closes the connection when its turn comes', async (t) => {
  const h = await harness(t, SCENARIO);
  const started = Date.now();
  const got = await pipeline(
    h.proxy.url,
    [
      ['lead.submit', 1],
      ['inventory.vehicle', 2],
      ['dealer.information', 3],
    ],
    5_000,
  );
  t.equal(got.ended, 'closed', `the connection is closed (after ${Date.now() - started} ms)`);
  t.ok(Date.now() - started < 4_000, 'within the bound');
  const replies = got.text.split('HTTP/1.1 ').slice(1);
  t.equal(replies.length, 1, 'only the slower reply before the hang');
  t.equal(JSON.parse(bodyOf(replies[0] ?? '')).id, 1, 'and it arrives whole');
});
