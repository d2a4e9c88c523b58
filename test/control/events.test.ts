import { once } from 'node:events';
import net from 'node:net';
import t from 'tap';
import { WebSocket } from 'ws';
import type { JournalEntry } from '../../src/journal/entry.js';
import http from 'node:http';
import { DEFAULT_MAX_EVENT_CLIENTS } from '../../src/control/events.js';
import { request, waitFor } from '../helpers/servers.js';
import { callSkill, startTestRuntime } from './control-fixture.js';

/** Opens /events; `socket` is the client's own TCP socket, so a test can stop reading from it. */
async function openEvents(adminUrl: string): Promise<{ ws: WebSocket; socket: net.Socket; messages: unknown[] }> {
  let socket!: net.Socket;
  const ws = new WebSocket(`${adminUrl.replace(/^http/, 'ws')}/events`, {
    createConnection: (opts: net.NetConnectOpts) => (socket = net.connect(opts)),
  } as object);
  const messages: unknown[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  await once(ws, 'open');
  return { ws, socket, messages };
}

/** Resolves once `predicate` holds after some message arrives. */
function untilMessage(ws: WebSocket, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const check = () => {
      if (!predicate()) return;
      ws.off('message', check);
      resolve();
    };
    ws.on('message', check);
  });
}

t.test('each request arrives as one message: its journal line', async (t) => {
  const rt = await startTestRuntime(t);
  const { ws, messages } = await openEvents(rt.adminUrl);
  await callSkill(rt.url, 'inventory.search', 'e1');
  await callSkill(rt.url, 'dealer.information', 'e2');
  await untilMessage(ws, () => messages.length === 2);
  t.same(messages, rt.journal.all(), 'the messages are the journal lines');
  t.match(messages[0], { rpc_id: 'e1', fired: ['throttle-search'], error_code: 'RATE_LIMITED' });
  ws.close();
});

t.test('a client that stops reading never slows the proxy, and learns how many it missed', async (t) => {
  // A small cap so the test needs few requests; long paths make each journal line large.
  const rt = await startTestRuntime(t, { eventsBufferBytes: 16 * 1024, scenario: undefined });
  const slow = await openEvents(rt.adminUrl);
  const brisk = await openEvents(rt.adminUrl);
  slow.socket.pause();

  const longPath = `/unknown/${'x'.repeat(6000)}`;
  let sent = 0;
  const statuses: number[] = [];
  // Bounded: stop once the slow client has had messages dropped, or after 4 000 requests.
  while (rt.hub.dropped < 50 && sent < 4_000) {
    const batch = Array.from({ length: 20 }, () => request(rt.url + longPath).then((r) => statuses.push(r.status)));
    sent += batch.length;
    await Promise.all(batch);
  }
  t.ok(rt.hub.dropped >= 50, `messages were dropped for the paused client (${rt.hub.dropped} of ${sent})`);
  t.equal(statuses.length, sent, 'every request was answered while the client was paused');
  t.ok(
    statuses.every((s) => s === 404),
    'answered by the dealer',
  );

  await untilMessage(brisk.ws, () => brisk.messages.length === sent);
  t.equal(brisk.messages.length, sent, 'a client that keeps reading misses nothing');

  const notices = () => slow.messages.filter((m) => (m as { type?: string }).type === 'dropped') as { count: number }[];
  const entries = () => slow.messages.filter((m) => (m as { type?: string }).type === undefined) as JournalEntry[];
  const accounted = () => entries().length + notices().reduce((n, m) => n + m.count, 0);
  slow.socket.resume();
  await untilMessage(slow.ws, () => accounted() === sent);
  t.ok(notices().length >= 1, 'the client was told it missed messages');
  t.equal(accounted(), sent, 'messages received plus messages reported missed is every request');
  t.match(await metricsText(rt.adminUrl), new RegExp(`aap_chaos_journal_dropped_total\\{sink="events"\\} ${rt.hub.dropped}`));
  slow.ws.close();
  brisk.ws.close();
});

t.test('closing the runtime closes event clients with a close frame', async (t) => {
  const rt = await startTestRuntime(t);
  const { ws } = await openEvents(rt.adminUrl);
  const closed = once(ws, 'close') as Promise<[number, Buffer]>;
  await rt.close();
  const [code, reason] = await closed;
  t.equal(code, 1001);
  t.match(reason.toString(), /shutting down/);
});

async function metricsText(adminUrl: string): Promise<string> {
  return (await request(`${adminUrl}/metrics`)).body.toString('utf8');
}

t.test("one turn's messages leave in one write per client, each still its own message", async (t) => {
  const { EventHub } = await import('../../src/control/events.js');
  const http = await import('node:http');
  const hub = new EventHub();
  const server = http.createServer();
  let connection: import('node:stream').Duplex | undefined;
  server.on('upgrade', (req, socket, head) => {
    connection = socket;
    hub.accept(req, socket, head);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as net.AddressInfo;
  const { ws, messages } = await openEvents(`http://127.0.0.1:${port}`);
  t.teardown(() => hub.close());
  while (hub.clientCount === 0) await new Promise((resolve) => setImmediate(resolve));

  const entries = Array.from({ length: 50 }, (_, i) => ({ id: `01J${String(i).padStart(23, '0')}`, status: 200 }) as unknown as JournalEntry);
  for (const entry of entries) hub.onRequestDone(entry);
  t.equal(connection!.writableCorked, 1, 'the connection is corked while the turn queues its messages');
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(connection!.writableCorked, 0, 'and written out at the end of the turn');
  await untilMessage(ws, () => messages.length === 50);
  t.same(messages, entries, 'every entry arrives as its own message, in order');
  ws.close();
});

/** A raw /events upgrade: the status and headers the server answers with (the socket is closed after). */
function rawUpgrade(adminUrl: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${adminUrl}/events`, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('/events never echoes a token offered as a subprotocol, in whatever order', async (t) => {
  const rt = await startTestRuntime(t, { adminToken: 'tok-secret' });
  const tokenProtocol = `aap-chaos.token.${Buffer.from('tok-secret').toString('base64url')}`;
  for (const offered of [`${tokenProtocol}, aap-chaos.events`, `aap-chaos.events, ${tokenProtocol}`]) {
    const up = await rawUpgrade(rt.adminUrl, { 'sec-websocket-protocol': offered });
    t.equal(up.status, 101, offered);
    t.equal(up.headers['sec-websocket-protocol'], 'aap-chaos.events', 'the events protocol is the one selected');
  }
  const alone = await rawUpgrade(rt.adminUrl, { 'sec-websocket-protocol': tokenProtocol });
  t.equal(alone.status, 101, 'the token alone still authorises');
  t.equal(alone.headers['sec-websocket-protocol'], undefined, 'and no protocol is echoed');
});

t.test('/events: a client frame over 1 KiB closes that client (1009), the others keep receiving', async (t) => {
  const rt = await startTestRuntime(t);
  const big = await openEvents(rt.adminUrl);
  const other = await openEvents(rt.adminUrl);
  const closed = once(big.ws, 'close') as Promise<[number, Buffer]>;
  big.ws.send(Buffer.alloc(64 * 1024, 'x'));
  const [code] = await closed;
  t.equal(code, 1009, 'message too big');
  await callSkill(rt.url, 'inventory.search', 'after');
  await untilMessage(other.ws, () => other.messages.length === 1);
  t.match(other.messages[0], { rpc_id: 'after' });
  other.ws.close();
});

t.test('/events takes 64 clients at once; one more is refused with 503 saying why', async (t) => {
  const rt = await startTestRuntime(t);
  const clients = await Promise.all(Array.from({ length: DEFAULT_MAX_EVENT_CLIENTS }, () => openEvents(rt.adminUrl)));
  await waitFor(() => rt.hub.clientCount === DEFAULT_MAX_EVENT_CLIENTS);
  const refused = await rawUpgrade(rt.adminUrl, {});
  t.equal(refused.status, 503);
  const first = clients[0]!;
  const closed = once(first.ws, 'close');
  first.ws.close();
  await closed;
  await waitFor(() => rt.hub.clientCount === DEFAULT_MAX_EVENT_CLIENTS - 1);
  t.equal((await rawUpgrade(rt.adminUrl, {})).status, 101, 'a place that frees up is taken again');
  for (const c of clients) c.ws.terminate();
});

t.test('/events cuts a client that stops answering pings', async (t) => {
  const { EventHub } = await import('../../src/control/events.js');
  const hub = new EventHub(undefined, undefined, { heartbeatMs: 100 });
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => hub.accept(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(async () => {
    await hub.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const live = await openEvents(url);
  const dead = await openEvents(url);
  await waitFor(() => hub.clientCount === 2);
  dead.socket.pause(); // reads nothing more, so never sees a ping to answer
  await waitFor(() => hub.clientCount === 1, 5_000);
  t.equal(live.ws.readyState, WebSocket.OPEN, 'a client that answers stays');
  live.ws.close();
  dead.socket.destroy();
});
