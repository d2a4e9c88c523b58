/**
 * The reference the proxy is judged beside: the smallest forwarder undici allows (a Pool, the
 * request body and the reply piped through, no classification, rules, journal or metrics). It
 * shows in the same run what any Node forwarder costs on this machine, so the proxy's ratio can
 * be read against it. Started like proxy-child.js: `floor-child.js <target-url>`.
 */
import http from 'node:http';
import { Pool } from 'undici';

const [target] = process.argv.slice(2);
const pool = new Pool(target, { connections: 256 });
const server = http.createServer((req, res) => {
  pool.request({ path: req.url, method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/json' }, body: req }).then(
    ({ statusCode, headers, body }) => {
      res.writeHead(statusCode, { 'content-type': headers['content-type'], 'content-length': headers['content-length'] });
      body.pipe(res);
    },
    () => {
      res.statusCode = 502;
      res.end();
    },
  );
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (msg) => {
  if (msg?.type === 'stop') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
