/** The request every load case of the bench sends (bench/run.js, bench/rss.js). */

/** A JSON-RPC SendMessage for inventory.search. */
export const SEND_MESSAGE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: {
    message: {
      role: 'user',
      messageId: 'bench-1',
      parts: [{ kind: 'data', data: { type: 'inventory.search.request', filters: { make: ['Honda'], year_min: 2021 } } }],
    },
  },
});
export const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
