/**
 * The loopback dealer the benchmark measures against, run in its own process so that neither the
 * load generator nor the proxy shares its event loop. SendMessage gets one fixed ~2 KB JSON-RPC
 * reply; SendStreamingMessage gets 20 SSE events, the first at once and the rest 5 ms apart.
 * Replies are built once at start so the dealer costs as little as possible per request.
 *
 * Started by bench/run.js with fork(); it reports `{ type: 'ready', url }` over IPC and stops on
 * `{ type: 'stop' }`.
 */
import http from 'node:http';

export const SSE_EVENTS = 20;
export const SSE_INTERVAL_MS = 5;

/** A task-shaped JSON-RPC result padded to about 2 KB, as a search answer of a few vehicles would be. */
function fixedReply() {
  const vehicles = [];
  for (let i = 0; vehicles.length < 6; i++) {
    vehicles.push({
      vin: `1HGCV1F3${String(i).padStart(9, '0')}`,
      make: 'Honda',
      model: 'Accord',
      year: 2022 + (i % 3),
      price: 27_000 + i * 450,
      status: 'available',
      dealer_stock_id: `ST-${1000 + i}`,
    });
  }
  const body = {
    jsonrpc: '2.0',
    id: 1,
    result: {
      kind: 'message',
      role: 'agent',
      messageId: '01J00000000000000000000000',
      parts: [
        {
          kind: 'data',
          data: { type: 'inventory.search.response', total: vehicles.length, vehicles, facets: { make: { Honda: 6 }, body_style: { sedan: 6 } } },
        },
      ],
    },
  };
  let text = JSON.stringify(body);
  // Pad to just over 2 KB with a note field so the size does not depend on the vehicle list above.
  if (text.length < 2048) {
    body.result.parts[0].data.note = 'x'.repeat(2048 - text.length - ',"note":""'.length + 1);
    text = JSON.stringify(body);
  }
  return Buffer.from(text);
}

const REPLY = fixedReply();
const SSE_EVENT = Buffer.from(
  `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'status-update', taskId: 't1', status: { state: 'working' } } })}\n\n`,
);

function streamEvents(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  const sendOne = () => {
    res.write(SSE_EVENT);
    if (++sent === SSE_EVENTS) {
      clearInterval(timer);
      res.end();
    }
  };
  const timer = setInterval(sendOne, SSE_INTERVAL_MS);
  res.once('close', () => clearInterval(timer));
  sendOne();
}

const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    // A substring test is enough to tell the two methods apart, and keeps the dealer cheap.
    if (Buffer.concat(chunks).includes('"SendStreamingMessage"')) return streamEvents(res);
    if (req.method !== 'POST') {
      res.writeHead(404, { 'content-length': 0 });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': REPLY.length });
    res.end(REPLY);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${server.address().port}`, replyBytes: REPLY.length });
});

process.on('message', (msg) => {
  if (msg?.type !== 'stop') return;
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
// The parent vanished: nothing left to serve.
process.on('disconnect', () => process.exit(0));
