// The reply watch decides on a JSON reply's first bytes whether it may be the dealer's own error.
import t from 'tap';
import { looksLikeRpcError } from '../../src/proxy/dealer-reply-watch.js';

t.test('an "error" member before any "result" marks a reply as a possible error, within its first 512 bytes', async (t) => {
  t.ok(looksLikeRpcError(Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":-32603}}')));
  t.ok(looksLikeRpcError(Buffer.from('{"error":{"code":-32603},"result":null}')), 'error named first');
  t.notOk(looksLikeRpcError(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"error":"in the data"}}')), 'result named first');
  t.notOk(looksLikeRpcError(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}')));
  t.notOk(looksLikeRpcError(Buffer.from(`{"pad":"${'x'.repeat(600)}","error":{}}`)), 'past the first 512 bytes nothing is looked for');
});
