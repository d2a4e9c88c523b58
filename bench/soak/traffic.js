/**
 * The soak's buyers: requests at a steady rate on an absolute schedule (timer lateness does not
 * accumulate), a mix of the mock dealer's skills, one in five a streamed reply (SSE), each with a
 * JSON-RPC id of its own ("soak-N") so that every answered request can be found in the journal.
 * Eight buyers share the traffic (header x-buyer, the proxy's --client-key), as teams share a
 * staging proxy: the report and live views grade each buyer on its own lines.
 */
import http from 'node:http';

/** Buyers the traffic is spread over, by the x-buyer header. */
export const BUYERS = 8;

const part = (type, extra = {}) => ({ kind: 'data', data: { type: `${type}.request`, ...extra } });
const MIX = [
  ['SendMessage', part('inventory.search', { filters: { make: ['Honda'] }, pagination: { limit: 5 } })],
  ['SendStreamingMessage', part('inventory.search', { filters: {} })],
  ['SendMessage', part('dealer.information')],
  ['SendMessage', part('inventory.vehicle', { vin: '3FMUKX5S6SF000001' })],
  ['SendMessage', part('inventory.facets', { filters: {} })],
];

function body(n) {
  const [method, data] = MIX[n % MIX.length];
  return JSON.stringify({ jsonrpc: '2.0', id: `soak-${n}`, method, params: { message: { role: 'user', messageId: `m-${n}`, parts: [data] } } });
}

/** Runs until `stop()`; counts what was sent, what got an answer (a status line, then the whole body or a cut one) and what failed. */
export function startTraffic(url, rate) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const counts = { sent: 0, answered: 0, failed: 0, inFlight: 0 };
  const answeredIds = new Set();
  let stopped = false;
  const started = performance.now();
  const send = (n) => {
    counts.sent++;
    counts.inFlight++;
    const text = body(n);
    let done = false;
    const settle = (answered) => {
      if (done) return;
      done = true;
      counts.inFlight--;
      if (answered) {
        counts.answered++;
        answeredIds.add(`soak-${n}`);
      } else counts.failed++;
    };
    const req = http.request(
      `${url}/a2a`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-buyer': `buyer-${n % BUYERS}` }, timeout: 60_000 },
      (res) => {
        res.resume();
        // A reply the proxy cut on purpose (a stream error, a reset mid-body) was still answered.
        res.on('end', () => settle(true));
        res.on('error', () => settle(true));
        res.on('close', () => settle(true));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => settle(false));
    req.end(text);
  };
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const wait = started + (n * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!stopped) send(n);
    }
  })();
  return {
    counts,
    answeredIds,
    /** Stops sending and resolves once every request in flight has settled. */
    async stop() {
      stopped = true;
      await loop;
      while (counts.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      agent.destroy();
    },
  };
}
