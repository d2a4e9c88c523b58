/**
 * A peer beside the proxy: http-proxy-3 (the maintained successor of node-http-proxy, what many
 * Node gateways forward with) forwarding every request to the dealer over a keep-alive agent,
 * as its documentation sets it up for throughput. Not a target; it shows what a general Node
 * forwarder a user might pick instead costs in the same run. Started like floor-child.js:
 * `http-proxy-child.js <target-url>`.
 */
import http from 'node:http';
import { createProxyServer } from 'http-proxy-3';

const [target] = process.argv.slice(2);
const proxy = createProxyServer({ target, agent: new http.Agent({ keepAlive: true, maxSockets: 256 }) });
proxy.on('error', (_err, _req, res) => {
  if (res instanceof http.ServerResponse && !res.headersSent) res.writeHead(502);
  res.end();
});
const server = http.createServer((req, res) => proxy.web(req, res));
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (msg) => {
  if (msg?.type === 'stop') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
