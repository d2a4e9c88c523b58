// The rewritten agent card carries a validator of its own bytes; a conditional request never lets
// a buyer keep the dealer's unrewritten card (which would send it around the proxy).
import t from 'tap';
import { startProxy } from '../../src/proxy/server.js';
import { cardEtag } from '../../src/protocol/agent-card.js';
import { request, startUpstream } from '../helpers/servers.js';

const DEALER_ETAG = '"dealer-card-1"';

t.test('the dealer ETag never reaches the buyer; If-None-Match is answered from the served bytes', async (t) => {
  let base = '';
  const up = await startUpstream((req, res) => {
    if (req.headers['if-none-match'] === DEALER_ETAG) {
      res.writeHead(304, { etag: DEALER_ETAG });
      return void res.end();
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      etag: DEALER_ETAG,
      'last-modified': 'Tue, 01 Dec 2026 00:00:00 GMT',
      'cache-control': 'max-age=60',
    });
    res.end(JSON.stringify({ name: 'Dealer', supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
  });
  base = up.url;
  const proxy = await startProxy({ target: up.url, port: 0 });
  t.teardown(async () => {
    await proxy.close();
    await up.close();
  });
  const cardUrl = `${proxy.url}/.well-known/agent-card.json`;

  const first = await request(cardUrl);
  t.equal(first.status, 200);
  t.match(JSON.parse(first.body.toString()).supportedInterfaces[0].url, proxy.url, 'rewritten');
  t.not(first.headers.etag, DEALER_ETAG, 'not the dealer validator');
  t.equal(first.headers.etag, cardEtag(first.body), 'a validator of the bytes served');
  t.equal(first.headers['last-modified'], undefined, "the dealer's Last-Modified is dropped");
  t.equal(first.headers['cache-control'], 'private, max-age=60', 'caching advice is kept, for the buyer alone (the card names the Host it asked)');

  const withDealerTag = await request(cardUrl, { headers: { 'if-none-match': DEALER_ETAG } });
  t.equal(withDealerTag.status, 200, "revalidating with the dealer's tag gets the rewritten card, not a 304");
  t.match(JSON.parse(withDealerTag.body.toString()).supportedInterfaces[0].url, proxy.url);
  t.notOk(
    up.seen.some((s) => s.headers['if-none-match'] || s.headers['if-modified-since']),
    'the dealer is asked unconditionally',
  );

  const revalidated = await request(cardUrl, { headers: { 'if-none-match': `W/"other", ${first.headers.etag}` } });
  t.equal(revalidated.status, 304, 'its own tag: not modified');
  t.equal(revalidated.body.length, 0);
  t.equal(revalidated.headers.etag, first.headers.etag);
});
