// timing-sensitive: grades or measures how fast things happen, so it keeps the normal CPU priority (test/helpers/test-priority.mjs).
// A multi-dealer exam of the reference JS buyers: three mock dealers behind one proxy, the buyer told
// AAP_DEALER_URLS. The resilient fan-out PASSes the three checks across dealers; the serial one,
// which asks the dealers one after the other and moves a lost lead to the next dealer, FAILs
// isolation and no-duplicate-lead.
import t from 'tap';
import { exam, fixture, type ExamJson } from '../helpers/exam.js';

const fanOutBuyer = (kind: 'resilient' | 'serial' | 'python') =>
  kind === 'python' ? ['python3', 'examples/python-buyer/buyer.py'] : [process.execPath, '--import', 'tsx', 'examples/buyer-command.ts', kind];
const dealerExam = (scenarios: string[], kind: 'resilient' | 'serial' | 'python') =>
  exam([
    '--mock-dealers',
    '3',
    '--scenarios',
    scenarios.map(fixture).join(','),
    '--slow-dealer-budget',
    '8s',
    '--timeout',
    '30s',
    '--json',
    '--allow-incomplete',
    '--',
    ...fanOutBuyer(kind),
  ]);
const BOTH = ['dealers-throttle.yaml', 'dealers-slow.yaml'];

const verdictsOf = (json: ExamJson) => Object.fromEntries(json.scenarios.map((s) => [s.scenario, s.verdicts]));

t.test('the resilient fan-outs (JS and Python) pass isolation, no-duplicate-lead and slow-dealer; the serial one fails two', async (t) => {
  const [resilient, python, serial] = await Promise.all([
    dealerExam(BOTH, 'resilient'),
    dealerExam(BOTH, 'python'),
    dealerExam(['dealers-throttle.yaml'], 'serial'),
  ]);

  for (const [name, outcome] of [
    ['JS', resilient],
    ['Python', python],
  ] as const) {
    const json = JSON.parse(outcome.out) as ExamJson;
    const good = verdictsOf(json);
    t.equal(good['dealers-throttle']!.isolation, 'PASS', `${name}: kept calling m1 and m2 while m3 was throttled`);
    t.equal(good['dealers-throttle']!['no-duplicate-lead'], 'PASS', `${name}: one lead, a lost reply retried at the same dealer with its key`);
    t.equal(good['dealers-slow']!['slow-dealer'], 'PASS', `${name}: answered without waiting for slow m2`);
    for (const [scenario, verdicts] of Object.entries(good))
      t.notOk(Object.values(verdicts).includes('FAIL'), `${name}: no FAIL in ${scenario}: ${JSON.stringify(verdicts)}`);
    // Each dealer was reached through its own card (the buyer only had the base URLs).
    const stdout = json.scenarios[0]!.runs[0]!.buyer.stdout;
    for (const name of ['m1', 'm2', 'm3']) t.match(stdout, new RegExp(`/d/${name}/ inventory\\.search: ok`), `${name} searched through its base`);
    t.equal(outcome.code, 0);
  }

  const bad = JSON.parse(serial.out) as ExamJson;
  const run = bad.scenarios[0]!.runs[0]!;
  t.equal(run.verdicts.isolation, 'FAIL', 'calls to m1 and m2 waited behind m3');
  t.equal(run.verdicts['no-duplicate-lead'], 'FAIL', 'the lost lead went on to m2 as a new lead');
  t.equal(run.evidence['no-duplicate-lead']!.length, 2, 'the lost lead and its copy');
  t.match(run.buyer.stdout, /\/d\/m2\/ lead\.submit/, 'the buyer was given every dealer in AAP_DEALER_URLS');
  t.equal(serial.code, 1);
});

t.test('a bad --dealer ends the exam with one line naming the flag and the value, exit 2', async (t) => {
  const bad = await exam(['--dealer', 'no-name-here', '--', 'true']);
  t.equal(bad.code, 2);
  t.match(bad.err, /^aap-chaos exam: --dealer: "no-name-here" has no name/);
});
