// The exam report's timeline is drawn from journal lines, whose retry hints are the dealer's own
// numbers: a huge one (6e10 ms, 1e300) must not grow the page or keep the renderer busy.
import t from 'tap';
import { tickStepS, timelineSvg } from '../../src/exam/timeline.js';
import { JournalBuilder, reply } from '../report/journal-builder.js';

const draw = (entries: JournalBuilder['entries']) => timelineSvg(entries, { anchor: (id) => `j-${id}`, highlight: new Set(), label: 'run' });

function run(retryAfterMs: number): JournalBuilder['entries'] {
  const j = new JournalBuilder();
  j.at(0, reply.rateLimited(retryAfterMs));
  j.at(2_000);
  j.at(3_000, { duration_ms: 400 });
  return j.entries;
}

/** The width of the bar of the request that starts 3 s in, in plot pixels. */
const lastBarWidth = (svg: string) => Number(/data-id="j03"[^>]*width="([\d.]+)"/.exec(svg)![1]);
const tickCount = (svg: string) => svg.match(/class="tick"/g)?.length ?? 0;

t.test('an ordinary hint is drawn whole, on a plot that fits it', async (t) => {
  const svg = draw(run(2_000));
  t.match(svg, /<rect class="hint"[^>]*><title>retry hint: wait 2000 ms<\/title>/);
  t.ok(tickCount(svg) >= 3 && tickCount(svg) <= 9, `${tickCount(svg)} ticks`);
});

for (const huge of [6e10, 1e300]) {
  t.test(`a hint of ${huge} ms: the page stays small and the requests stay readable`, async (t) => {
    const started = performance.now();
    const svg = draw(run(huge));
    t.ok(performance.now() - started < 1_000, 'drawn at once');
    t.ok(svg.length < 20_000, `${svg.length} characters`);
    t.ok(tickCount(svg) <= 9, `${tickCount(svg)} ticks`);
    t.ok(lastBarWidth(svg) > 10, `a 400 ms request is still ${lastBarWidth(svg)} px wide`);
    t.match(svg, `retry hint: wait ${huge} ms (drawn cut at the end of the plot)`, 'the hint says what it was, and that it is cut');
  });
}

t.test('tick steps are 1, 2, 5 × 10^k seconds, at most eight to a plot', async (t) => {
  t.same([0.5, 3, 9, 60, 1e6].map(tickStepS), [0.1, 0.5, 2, 10, 200000]);
  t.equal(tickStepS(Number.NaN), 1, 'no span, no loop');
});
