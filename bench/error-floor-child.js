/**
 * The second floor, for the injected-error path: a plain `node:http` server that reads the body,
 * parses it and answers one fixed INTERNAL_ERROR envelope carrying a fresh ULID, the least any
 * Node server can do to answer a JSON-RPC request with an error of its own. No classification,
 * rules, journal or metrics. Started like proxy-child.js: `error-floor-child.js` (no dealer).
 */
import http from 'node:http';
import { randomFillSync } from 'node:crypto';
import { memoryReading } from './memory-reading.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const random = new Uint8Array(16);

/** A ULID: 48 bits of milliseconds and 80 random bits, in Crockford base32. */
function ulid(now) {
  let time = '';
  for (let i = 0, t = now; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  randomFillSync(random);
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[random[i] & 31];
  return time + rest;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let id = null;
    try {
      id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id ?? null;
    } catch {
      /* answered with id null, as JSON-RPC says for an unreadable request */
    }
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: 'Internal error', data: { code: 'INTERNAL_ERROR', error_id: ulid(Date.now()), retryable: true } },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (msg) => {
  if (msg?.type === 'stop') process.exit(0);
  // bench/rss.js compares the proxy's memory with this server's under the same traffic.
  if (msg?.type === 'memory') memoryReading().then((m) => process.send(m));
});
process.on('disconnect', () => process.exit(0));
