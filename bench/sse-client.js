/**
 * Time to first SSE event, measured with node:http directly so that no client library sits
 * between the socket and the clock. Each stream is read to its end before the next one starts,
 * over one keep-alive connection per target, so connection set-up is not part of the figure.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export const STREAM_REQUEST = JSON.stringify({
  jsonrpc: '2.0',
  id: 'bench-stream',
  method: 'SendStreamingMessage',
  params: {
    message: { role: 'user', messageId: 'bench-stream', parts: [{ kind: 'data', data: { type: 'inventory.search.request', filters: { make: ['Honda'] } } }] },
  },
});

/** Opens one stream; resolves with the milliseconds from sending the request to the first `data:` line. */
function firstEventMs(url, agent) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let firstAt;
    const req = http.request(
      `${url}/a2a`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(STREAM_REQUEST) },
      },
      (res) => {
        res.on('data', (chunk) => {
          if (firstAt === undefined && chunk.includes('data:')) firstAt = performance.now();
        });
        res.on('end', () =>
          firstAt === undefined ? reject(new Error(`${url}: the stream ended without an event (HTTP ${res.statusCode})`)) : resolve(firstAt - start),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(STREAM_REQUEST);
  });
}

/**
 * Alternates streams between the targets, `count` per target, so drift affects them alike.
 * Returns the samples per target name.
 */
export async function measureFirstEvent(targets, count) {
  const agents = Object.fromEntries(Object.keys(targets).map((name) => [name, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  try {
    for (let i = 0; i < count; i++) {
      for (const [name, url] of Object.entries(targets)) samples[name].push(await firstEventMs(url, agents[name]));
    }
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
  }
  return samples;
}
