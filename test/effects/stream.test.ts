// stream: SSE faults event by event, applied without sockets and through the proxy.
import t from 'tap';
import http from 'node:http';
import { once } from 'node:events';
import { harness } from '../helpers/chaos-harness.js';
import { skillRequest } from '../helpers/servers.js';
import { planOf, stepContext, throughTransform } from '../helpers/effect-context.js';

t.test('pure: only on text/event-stream; rules combine; error_after ends with an error event', async (t) => {
  const { plan } = planOf(['{ id: a, stream: { cut_after: 4 } }', '{ id: b, stream: { error_after: 1 } }']);
  t.equal(plan.stream.length, 1, 'one step for both rules');
  const [step] = plan.stream;
  t.equal(step!.refuses!('text/event-stream; charset=utf-8'), undefined);
  t.equal(step!.refuses!('application/json'), 'content-type "application/json" is not text/event-stream');
  t.ok(step!.changesLength && !step!.onWholeBody);
  const out = await throughTransform(['data: {"n":0}\n\ndata: {"n":1}\n\n'], step!.transform(stepContext({ id: 7 })));
  const events = out.text.split('\n\n').filter(Boolean);
  t.equal(events.length, 2);
  t.match(events[1], /^event: error\ndata: \{"jsonrpc":"2.0","id":7,"error":\{"code":-32603/);
  t.notOk(out.broken);
});

const sseDealer = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let n = 0;
  const tick = () => {
    if (n === 5) return void res.end();
    res.write(`data: {"jsonrpc":"2.0","id":1,"result":{"n":${n++}}}\n\n`);
    setTimeout(tick, 2);
  };
  tick();
};

async function readStream(url: string): Promise<{ text: string; broken: boolean }> {
  const req = http.request(url + '/a2a', { method: 'POST', agent: false });
  req.end(skillRequest('inventory.search'));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  let text = '';
  res.on('data', (c) => (text += c));
  const broken = await new Promise<boolean>((resolve) => {
    res.on('end', () => resolve(false));
    res.on('aborted', () => resolve(true));
    res.on('error', () => resolve(true));
  });
  return { text, broken };
}

t.test('stream: cut_after, error_after and delay_ms on SSE replies', async (t) => {
  const cut = await harness(t, `rules:\n  - { id: cut, stream: { cut_after: 2 } }\n`, { dealer: sseDealer });
  const a = await readStream(cut.proxy.url);
  t.equal(a.text.split('\n\n').filter(Boolean).length, 2, 'two events, then the cut');
  t.ok(a.broken, 'the stream ends broken, not completed');
  const err = await harness(t, `rules:\n  - { id: err, stream: { error_after: 3 } }\n`, { dealer: sseDealer });
  const b = await readStream(err.proxy.url);
  const events = b.text.split('\n\n').filter(Boolean);
  t.equal(events.length, 4);
  t.match(events[3], /^event: error\ndata: \{"jsonrpc":"2.0","id":1,"error":\{"code":-32603/);
  const slow = await harness(t, `rules:\n  - { id: slow, stream: { delay_ms: 30 } }\n`, { dealer: sseDealer });
  const started = performance.now();
  const c = await readStream(slow.proxy.url);
  t.equal(c.text.split('\n\n').filter(Boolean).length, 5, 'every event delivered');
  t.ok(performance.now() - started >= 140, 'each event was held back');
});
