/**
 * `--shrink`: for each FAILed check of a run, the buyer re-run with the faults that fired in it
 * pinned to the requests they hit; a FAIL the full set does not bring back is not reproducible
 * (the buyer is flaky) and is not shrunk; otherwise ddmin finds a 1-minimal set within the budget
 * and writes it as repro/<scenario>-<check>-seed<N>.yaml (the scenario's name made a plain file name).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runOne, type ExamOptions } from './exam.js';
import { requirementIdOf, type ExamCheck, type ExamRun } from './scorecard.js';
import { ddmin, firingsOf, pinnedScenario, reproYaml, type Firing } from './shrink.js';
import type { BatteryScenario } from './battery.js';

export interface Reproducer {
  scenario: string;
  seed: number;
  /** The run it came from (its position among the scenario's runs). */
  trial: number;
  check: ExamCheck;
  requirement?: string;
  /** Written file, when the FAIL reproduced. */
  file?: string;
  /** The faults of the minimal set, as "rule on skill #nth". */
  faults: string[];
  /** Journal ids, in the run it came from, of the requests those faults hit. */
  entries: string[];
  reproducible: boolean;
  oneMinimal: boolean;
  runs: number;
  command?: string;
}

/**
 * A reproducer's name, which is also its file's name under repro/: the scenario's own name is text
 * from a scenario file (`scenario: ../../pwned` once wrote outside repro/), so only letters, digits,
 * `.`, `_` and `-` are kept, no leading dot or dash, at most 80 characters of it.
 */
export function reproducerName(scenario: string, check: string, seed: number): string {
  const plain =
    scenario
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 80) || 'scenario';
  return `${plain}-${check}-seed${seed}`;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

export async function shrinkFailures(
  runs: readonly ExamRun[],
  battery: readonly BatteryScenario[],
  opts: ExamOptions,
  budget: number,
  dir = 'repro',
): Promise<Reproducer[]> {
  const found: Reproducer[] = [];
  let spent = 0;
  for (const run of runs) {
    const b = battery.find((x) => x.name === run.scenario);
    if (b === undefined || b.twinOf !== undefined) continue;
    for (const check of Object.keys(run.verdicts) as ExamCheck[]) {
      if (run.verdicts[check] !== 'FAIL') continue;
      const name = reproducerName(run.scenario, check, run.seed);
      const all = firingsOf(run.journal, b.scenario.rules ?? []);
      const fails = async (subset: Firing[]) => {
        const scenario = pinnedScenario(b.scenario, name, run.seed, subset);
        const again = await runOne({ battery: { ref: name, name, scenario }, seed: run.seed, trial: 0 }, { ...opts, progress: undefined });
        return again.verdicts[check] === 'FAIL';
      };
      const base = { scenario: run.scenario, seed: run.seed, trial: run.trial, check, requirement: requirementIdOf(check) };
      if (spent >= budget) break;
      spent++;
      if (!(await fails(all))) {
        found.push({ ...base, faults: [], entries: [], reproducible: false, oneMinimal: false, runs: 1 });
        continue;
      }
      const result = await ddmin(all, fails, budget - spent);
      spent += result.runs;
      const file = path.join(dir, `${name}.yaml`);
      await mkdir(dir, { recursive: true });
      await writeFile(file, reproYaml(pinnedScenario(b.scenario, name, run.seed, result.minimal), check, base.requirement, run.scenario), 'utf8');
      const command = `npx aap-chaos exam --scenarios ${quote(file)} --seed ${run.seed} -- ${opts.command.map(quote).join(' ')}`;
      found.push({
        ...base,
        file,
        faults: result.minimal.map((f) => `${f.rule.id} on ${f.skill} #${f.nth}`),
        entries: result.minimal.map((f) => f.entry),
        reproducible: true,
        oneMinimal: result.oneMinimal,
        runs: result.runs + 1,
        command,
      });
    }
  }
  return found;
}

/** The terminal's lines: each reproducer with its command, or why there is none. */
export function formatReproducers(found: readonly Reproducer[]): string {
  const lines = found.map((r) => {
    const what = `${r.scenario} ${r.check}${r.requirement ? ` (${r.requirement})` : ''} seed ${r.seed}`;
    if (!r.reproducible) return `NOT REPRODUCIBLE ${what}: re-run with the same faults did not FAIL (the buyer is flaky)`;
    const minimal = r.oneMinimal ? 'minimal' : 'smaller (budget spent before 1-minimal)';
    return `REPRO ${what}: ${r.faults.length} fault(s), ${minimal}: ${r.faults.join(', ')} (${r.runs} runs)\n  ${r.command}`;
  });
  return lines.length ? `\n${lines.join('\n')}` : '';
}
