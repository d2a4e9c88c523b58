// The ready CI workflow: valid YAML whose exam command line uses only flags `aap-chaos exam` knows,
// names the report files it then uploads and publishes, and parses as a real exam invocation.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { EXAM_USAGE, parseExamArgs } from '../../src/commands/exam.js';
import { ROOT } from '../helpers/exam.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

const workflow = parse(readFileSync(`${ROOT}examples/ci/github-actions.yml`, 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);

t.test('installs Node, runs the exam, uploads the HTML and publishes the JUnit', async (t) => {
  t.ok(
    steps.some((s) => s.uses?.startsWith('actions/setup-node@')),
    'installs Node',
  );
  const exam = steps.find((s) => s.run?.includes('aap-chaos exam'));
  t.ok(exam, 'a step runs the exam');
  const argv = exam!.run!.trim().split(/\s+/);
  t.same(argv.slice(0, 3), ['npx', 'aap-chaos', 'exam']);
  const flags = argv.slice(3, argv.indexOf('--')).filter((a) => a.startsWith('-'));
  for (const flag of flags) t.match(EXAM_USAGE, new RegExp(`^ +${flag}[ ,]`, 'm'), `${flag} is a real exam flag`);
  const opts = parseExamArgs(argv.slice(3));
  t.not(opts, 'help');
  t.notOk('list' in (opts as object));
  t.match(opts, { junit: 'exam.xml', html: 'exam.html', baseline: 'aap-baseline.yaml' });
  t.ok(
    steps.some((s) => s.uses?.startsWith('actions/upload-artifact@') && s.with?.path === 'exam.html'),
    'uploads the HTML report',
  );
  t.ok(
    steps.some((s) => /junit/i.test(s.uses ?? '') && s.with?.report_paths === 'exam.xml'),
    'publishes the JUnit',
  );
});
