// A bad --dealer or --mock-dealers value ends the proxy command with one line naming the flag and the
// value, exit 2, before anything listens.
import t from 'tap';
import { runCli } from '../reliability/cli-run.js';

const cases: [string[], RegExp][] = [
  [['--dealer', 'http://127.0.0.1:9001'], /^aap-chaos: --dealer: "http:\/\/127.0.0.1:9001" has no name \(use NAME=URL/],
  [
    ['--dealer', 'a=http://127.0.0.1:9001', '--dealer', 'a=http://127.0.0.1:9002'],
    /^aap-chaos: --dealer: "a=http:\/\/127.0.0.1:9002" names dealer a a second time/,
  ],
  [['--dealer', 'a=ftp://x'], /^aap-chaos: --dealer: "a=ftp:\/\/x" has a URL that is not an http:\/\/ or https:\/\/ URL/],
  [['--dealer', 'a b=http://127.0.0.1:9001'], /^aap-chaos: --dealer: "a b=http:\/\/127.0.0.1:9001" has no usable name/],
  [['--mock-dealers', '65'], /^aap-chaos: --mock-dealers: "65" is not a number of mock dealers from 1 to 64/],
  [['--dealer', 'a=http://127.0.0.1:9001', '--target', 'http://127.0.0.1:9001'], /^aap-chaos: --dealer \/ --mock-dealers: cannot be combined with --target/],
];

t.test('bad dealer flags: one line, exit 2', async (t) => {
  const runs = await Promise.all(cases.map(([args]) => runCli([...args, '--port', '0', '--admin-port', '0'])));
  for (const [i, run] of runs.entries()) {
    const [args, message] = cases[i]!;
    t.equal(run.code, 2, `exit 2 for ${args.join(' ')}`);
    t.match(run.err, message);
    t.equal(run.err.trim().split('\n').length, 1, 'one line');
    t.notMatch(run.err, /\n\s+at /, 'no stack trace');
  }
});
