/**
 * A second floor beside floor-child.js: the same minimal forwarder without undici. The buyer's
 * request is written to a pooled keep-alive socket as one buffer (head built from its raw headers,
 * body as received), and the dealer's reply is framed by Node's own llhttp binding (the parser
 * node:http's client uses), its status and raw headers handed to writeHead as a flat array so
 * Node builds no header object. It answers whether skipping undici is worth a fast path in the
 * proxy. Started like floor-child.js: `raw-floor-child.js <target-url>`.
 */
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';

const { HTTPParser } = createRequire(import.meta.url)('_http_common');
const kOnHeaders = HTTPParser.kOnHeaders;
const kOnHeadersComplete = HTTPParser.kOnHeadersComplete;
const kOnBody = HTTPParser.kOnBody;
const kOnMessageComplete = HTTPParser.kOnMessageComplete;

const [target] = process.argv.slice(2);
const url = new URL(target);
const port = Number(url.port || 80);
const hostHeader = url.host;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'http2-settings',
]);

/** The raw headers that cross a proxy: hop-by-hop ones and those named in Connection are dropped. */
function endToEnd(raw, dropLength) {
  let listed;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 10 && raw[i].toLowerCase() === 'connection') {
      for (const n of raw[i + 1].split(',')) {
        const name = n.trim().toLowerCase();
        if (name && name !== 'close' && name !== 'keep-alive') (listed ??= new Set()).add(name);
      }
    }
  }
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed?.has(lower) || (dropLength && lower === 'content-length')) continue;
    out.push(raw[i], raw[i + 1]);
  }
  return out;
}

const idle = [];

class Upstream {
  constructor() {
    this.socket = net.connect(port, url.hostname);
    this.socket.setNoDelay(true);
    this.parser = new HTTPParser();
    this.parser.initialize(HTTPParser.RESPONSE, {}, 0, 0);
    this.headers = [];
    this.res = undefined;
    this.keepAlive = false;
    this.parser[kOnHeaders] = (headers) => {
      for (const h of headers) this.headers.push(h);
    };
    this.parser[kOnHeadersComplete] = (_maj, _min, headers, _m, _u, status, _msg, _upg, keepAlive) => {
      if (!headers) {
        headers = this.headers;
        this.headers = [];
      }
      if (status < 200) return 1;
      this.keepAlive = keepAlive;
      this.res.writeHead(status, endToEnd(headers, false));
      return this.head ? 1 : 0;
    };
    this.parser[kOnBody] = (chunk) => {
      if (!this.res.write(chunk)) {
        this.socket.pause();
        this.res.once('drain', () => this.socket.resume());
      }
    };
    this.parser[kOnMessageComplete] = () => {
      const res = this.res;
      this.res = undefined;
      if (this.keepAlive) idle.push(this);
      else this.socket.destroy();
      res.end();
    };
    this.socket.on('data', (d) => {
      const ret = this.parser.execute(d);
      if (ret instanceof Error) this.fail();
    });
    this.socket.on('end', () => {
      this.parser.finish();
      this.fail();
    });
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => this.fail());
  }

  fail() {
    const i = idle.indexOf(this);
    if (i !== -1) idle.splice(i, 1);
    this.socket.destroy();
    const res = this.res;
    this.res = undefined;
    if (!res) return;
    if (res.headersSent) res.destroy();
    else {
      res.statusCode = 502;
      res.end();
    }
  }

  send(req, res, body) {
    this.res = res;
    this.head = req.method === 'HEAD';
    // The body goes as one buffer whose length is known, whatever framing the buyer used.
    const raw = endToEnd(req.rawHeaders, true);
    let head = `${req.method} ${req.url} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
    for (let i = 0; i < raw.length; i += 2) head += `${raw[i]}: ${raw[i + 1]}\r\n`;
    head += `content-length: ${body.length}\r\n\r\n`;
    this.socket.cork();
    this.socket.write(head, 'latin1');
    if (body.length > 0) this.socket.write(body);
    this.socket.uncork();
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const up = idle.pop() ?? new Upstream();
    up.send(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }));
process.on('message', (msg) => {
  if (msg?.type === 'stop') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
