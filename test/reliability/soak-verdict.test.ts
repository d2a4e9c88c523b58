// The soak's verdict (bench/soak/verdict.js) on figures of runs seen: its event-loop criterion
// judges what the proxy adds to what the machine does to any process, not the machine.
import t from 'tap';
// @ts-expect-error: the bench is plain JavaScript, without types
import { failures } from '../../bench/soak/verdict.js';

const steady = { samples: [], halfMinute: 1, lost: 0, duplicated: 0, broken: 0, auditOk: true };
const verdictOf = (loopP99Ms: number, idleLoopP99Ms: number) => failures({ ...steady, loopP99Ms, idleLoopP99Ms }) as { out: string[]; loopJudged: boolean };

t.test('a quiet machine: the proxy p99 is judged against 50 ms', async (t) => {
  t.same(verdictOf(12, 1).out, []);
  t.match(verdictOf(60, 1).out, [/event-loop delay p99 60 ms, 59 ms past an idle process beside it \(limit 50 ms\)/]);
});

t.test(
  'a machine half busy: the delay an idle process shows too is the machine, not the proxy (CI: 55.5 ms beside an idle process at about 22 ms)',
  async (t) => {
    const busyish = verdictOf(55.5, 22);
    t.ok(busyish.loopJudged, 'still judged');
    t.same(busyish.out, [], 'the proxy added 33.5 ms: within the limit');
    t.match(verdictOf(80, 22).out, [/58 ms past an idle process/], 'and a proxy that adds more still fails');
  },
);

t.test('a busy machine: printed, not judged', async (t) => {
  const busy = verdictOf(400, 30);
  t.notOk(busy.loopJudged);
  t.same(busy.out, []);
});
