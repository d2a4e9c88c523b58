/**
 * The 10,000-rule load time on its own, without the rest of the bench:
 *
 *   node bench/load-time.js [--runs N] [--rules N] [--object] [--build DIR]…
 *
 * Writes the bench's scenario of non-matching rules (bench/rules-scenario.js), then starts N fresh
 * processes per build (bench/load-time-child.js), taken round-robin across the builds so drift of the
 * machine hits all of them alike, and prints per build the median (and the range) of the time from
 * `startRuntime` to serving, and of its split: read+parse, validation, engine build, listen. Each
 * --build names a directory holding dist/, schema/ and package.json (default: this project, which
 * must be built); give two to compare an older build with this one. --object also times
 * `startRuntime({ scenario: OBJECT })` with the same scenario as an object (the library's way). At
 * 10,000 rules its JSON text is past the default 1 MiB limit, so the object is refused; try --rules 5000.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeNonMatchingRules } from './rules-scenario.js';
import { removeWorkDir, workDir } from './work-dir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option('--runs', '7'));
const rules = Number(option('--rules', '10000'));
const withObject = args.includes('--object');
const builds = args.flatMap((a, i) => (a === '--build' ? [path.resolve(args[i + 1])] : []));
if (builds.length === 0) builds.push(path.resolve(here, '..'));
if (!(Number.isInteger(runs) && runs > 0 && runs <= 100) || !(Number.isInteger(rules) && rules > 0)) {
  console.error('usage: node bench/load-time.js [--runs 1..100] [--rules N] [--object] [--build DIR]…');
  process.exit(2);
}

const run = promisify(execFile);
const child = path.join(here, 'load-time-child.js');
async function measure(build, file, mode) {
  const { stdout } = await run(process.execPath, [child, build, file, mode], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const figure = (values) => `${Math.round(median(values))} ms (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;

const dir = workDir('aap-chaos-load-time-');
try {
  const file = path.join(dir, `rules-${rules}.yaml`);
  await writeNonMatchingRules(file, rules);
  const results = new Map(builds.map((b) => [b, { total: [], object: [], parseMs: [], validateMs: [], engineMs: [], listenMs: [] }]));
  for (let i = 0; i < runs; i++) {
    for (const build of builds) {
      const r = results.get(build);
      r.total.push((await measure(build, file, 'total')).totalMs);
      if (withObject) r.object.push((await measure(build, file, 'object')).totalMs);
      const split = await measure(build, file, 'split');
      for (const key of ['parseMs', 'validateMs', 'engineMs', 'listenMs']) r[key].push(split[key]);
    }
  }
  console.log(
    `${rules.toLocaleString('en-US')} rules, ${runs} fresh processes per build and measure; median (min–max); load average ${os.loadavg()[0].toFixed(2)}`,
  );
  for (const [build, r] of results) {
    console.log(`\n${build}`);
    console.log(`  startRuntime to serving  ${figure(r.total)}`);
    console.log(`    read + parse           ${figure(r.parseMs)}`);
    console.log(`    validation             ${figure(r.validateMs)}`);
    console.log(`    engine build           ${figure(r.engineMs)}`);
    console.log(`    listen                 ${figure(r.listenMs)}`);
    if (withObject) console.log(`  the same as an object    ${figure(r.object)}`);
  }
} finally {
  removeWorkDir(dir);
}
