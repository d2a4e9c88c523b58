// `aap-chaos replay --diff`: the recorded requests sent to a live dealer, its answers compared
// field by field. Unchanged: no drift (ids and timestamps differ, and do not count). A vehicle
// whose price changed: the field is named, with both values; exit 1, JSON and JUnit.
import t from 'tap';
import { cli } from '../helpers/cli-run.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diffRecording } from '../../src/replay/drift.js';
import { formatDrift } from '../../src/replay/drift-format.js';
import { startMockDealer } from '../../src/mock/index.js';
import { mockDealer, rpc, runtime, skillBody, streamEvents } from '../helpers/recording.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir(t, 'aap-chaos-drift-');
const file = path.join(dir, 'staging.jsonl');

const { vin } = await (async () => {
  const mock = await mockDealer(t);
  const proxy = await runtime(t, { target: mock.url, record: file });
  const vin = mock.dealer.inventory.firstAvailable().vin;
  await rpc(proxy.url, skillBody('inventory.vehicle', { vin }, 1));
  await rpc(proxy.url, skillBody('dealer.information', {}, 2));
  await streamEvents(proxy.url, skillBody('dealer.information', {}, 3, { method: 'SendStreamingMessage' }));
  await proxy.close();
  return { vin };
})();

t.test('against the same dealer: no drift, whatever its ids and timestamps', async (t) => {
  const same = await mockDealer(t);
  const result = await diffRecording({ file, target: same.url });
  t.equal(result.drift, false, JSON.stringify(result.exchanges.filter((x) => x.verdict !== 'same')));
  t.same(
    result.exchanges.map((x) => x.verdict),
    ['same', 'same', 'same', 'same'],
    'the card and three exchanges',
  );
  const run = await cli(['replay', '--diff', file, '--target', same.url]);
  t.equal(run.code, 0);
  t.match(run.out, 'no drift');
});

t.test('after the inventory changed: the changed fields, recorded vs live, exit 1', async (t) => {
  const moved = await mockDealer(t);
  const vehicle = moved.dealer.inventory.vehicles.find((v) => v.vin === vin)! as { price: number; status: string };
  const oldPrice = vehicle.price;
  vehicle.price = oldPrice + 1000;
  vehicle.status = 'pending';
  const result = await diffRecording({ file, target: moved.url });
  t.equal(result.drift, true);
  const drifted = result.exchanges.filter((x) => x.verdict === 'drift');
  t.equal(drifted.length, 1, 'only the vehicle exchange drifted');
  t.match(drifted[0], { exchange: 1, method: 'SendMessage', skill: 'inventory.vehicle', at: `${file}:3` });
  const changed = Object.fromEntries(drifted[0]!.differences.map((d) => [d.pointer, [d.recorded, d.live]]));
  t.same(Object.keys(changed).sort(), ['/body/result/message/parts/0/data/data/price', '/body/result/message/parts/0/data/data/status'].sort());
  t.same(changed['/body/result/message/parts/0/data/data/price'], [oldPrice, oldPrice + 1000]);

  const ignored = await diffRecording({ file, target: moved.url, ignore: ['/result/message/parts/0/data/data/price'] });
  t.same(
    ignored.exchanges.find((x) => x.exchange === 1)!.differences.map((d) => d.pointer),
    ['/body/result/message/parts/0/data/data/status'],
    '--ignore leaves a field out',
  );

  const junit = path.join(dir, 'drift.xml');
  const run = await cli(['replay', '--diff', file, '--target', moved.url, '--json', '--junit', junit]);
  t.equal(run.code, 1, 'exit 1 on drift');
  const json = JSON.parse(run.out);
  t.equal(json.drift, true);
  t.match(json.exchanges[1], { exchange: 1, verdict: 'drift', differences: [{ pointer: String }] });
  const xml = readFileSync(junit, 'utf8');
  // The project's one JUnit writer: the same attributes as the report's, the exam's and check's files.
  t.match(xml, /<testsuites name="aap-chaos replay --diff" tests="4" failures="1" errors="0" skipped="0">/);
  t.match(xml, /<testsuite name="[^"]*staging\.jsonl against [^"]*" tests="4" failures="1" errors="0" skipped="0">/);
  t.match(xml, /\/body\/result\/message\/parts\/0\/data\/data\/price: recorded \d+, live \d+/);
  t.match(formatDrift(result), /exchange 1 \(SendMessage inventory\.vehicle, .*staging\.jsonl:3\): 2 differences/);
});

t.test('a dealer that cannot be reached is drift, named per exchange', async (t) => {
  const gone = await startMockDealer({ port: 0 });
  const url = gone.url;
  await gone.close();
  const result = await diffRecording({ file, target: url });
  t.equal(result.drift, true);
  t.same(
    result.exchanges.map((x) => x.verdict),
    ['failed', 'failed', 'failed', 'failed'],
  );
  t.match(formatDrift(result), /exchange 1 \(SendMessage inventory\.vehicle, .*\): FAILED\n\s+the live request failed: ECONNREFUSED/);
});

t.test('usage errors exit 2 with one line', async (t) => {
  const noTarget = await cli(['replay', '--diff', file]);
  t.equal(noTarget.code, 2);
  t.match(noTarget.err, '--diff: needs --target URL');
  const badTarget = await cli(['replay', '--diff', file, '--target', 'ftp://x']);
  t.equal(badTarget.code, 2);
  t.match(badTarget.err, '--target: "ftp://x" is not an http:// or https:// URL');
});
