// A multi-dealer exam of the reference JS buyers: three mock dealers behind one proxy, the buyer told
// AAP_DEALER_URLS. The resilient fan-out PASSes the three checks across dealers; the serial one,
// which asks the dealers one after the other and moves a lost lead to the next dealer, FAILs
// isolation and no-duplicate-lead.
import t from 'tap';
import { exam, fixture, type ExamJson } from '../helpers/exam.js';

const fanOutBuyer = (kind: 'resilient' | 'serial') => [process.execPath, '--import', 'tsx', 'examples/buyer-command.ts', kind];
const dealerExam = (scenarios: string[], kind: 'resilient' | 'serial') =>
  exam(['--mock-dealers', '3', '--scenarios', scenarios.map(fixture).join(','), '--slow-dealer-budget', '8s', '--timeout', '30s', '--json', '--', ...fanOutBuyer(kind)]);

const verdictsOf = (json: ExamJson) => Object.fromEntries(json.scenarios.map((s) => [s.scenario, s.verdicts]));

t.test('the resilient fan-out passes isolation, no-duplicate-lead and slow-dealer; the serial one fails two', async (t) => {
  const [resilient, serial] = await Promise.all([dealerExam(['dealers-throttle.yaml', 'dealers-slow.yaml'], 'resilient'), dealerExam(['dealers-throttle.yaml'], 'serial')]);

  const good = verdictsOf(JSON.parse(resilient.out) as ExamJson);
  t.equal(good['dealers-throttle']!.isolation, 'PASS', 'kept calling m1 and m2 while m3 was throttled');
  t.equal(good['dealers-throttle']!['no-duplicate-lead'], 'PASS', 'the lost lead was retried at m1 with its key');
  t.equal(good['dealers-slow']!['slow-dealer'], 'PASS', 'answered without waiting for slow m2');
  for (const [scenario, verdicts] of Object.entries(good)) t.notOk(Object.values(verdicts).includes('FAIL'), `no FAIL in ${scenario}: ${JSON.stringify(verdicts)}`);
  t.equal(resilient.code, 0);

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
