/**
 * Which scenarios an exam runs: the default battery (the built-ins whose faults exercise the
 * report's buyer checks), every built-in (`--all`), or a list of names and files. Each is loaded
 * and validated before any buyer starts, so a bad file ends the exam at once with its problems.
 */
import { listBuiltinScenarios, formatProblem, type Scenario } from '../scenario/load.js';
import { loadScenarioInput } from '../scenario/input.js';

/**
 * Built-ins that between them exercise every buyer check of the report for a buyer that searches,
 * looks vehicles up and submits leads (lead-recovery also runs as its untidy twin, differential.ts).
 */
export const DEFAULT_BATTERY = [
  'rate-limit-storm',
  'flaky-internal',
  'activation-required',
  'version-mismatch',
  'lead-gauntlet',
  'inventory-churn',
  'lead-recovery',
] as const;

export interface BatteryScenario {
  /** What the user named (a built-in name or a path). */
  ref: string;
  /** The scenario's own name, else the reference. */
  name: string;
  scenario: Scenario;
  /** For an untidy twin: the battery scenario it repeats with untidy envelopes. */
  twinOf?: string;
}

export class BatteryError extends Error {
  override name = 'BatteryError';
}

/** What `exam --card-trust` adds to any battery: the card served with a forged, then a missing signature. */
export const CARD_TRUST_SCENARIO = 'card-forgery';

export async function scenarioRefs(opts: { scenarios?: string; all?: boolean; cardTrust?: boolean }): Promise<string[]> {
  const refs = await namedRefs(opts);
  return opts.cardTrust && !refs.includes(CARD_TRUST_SCENARIO) ? [...refs, CARD_TRUST_SCENARIO] : refs;
}

async function namedRefs(opts: { scenarios?: string; all?: boolean }): Promise<string[]> {
  if (opts.all) return (await listBuiltinScenarios()).map((s) => s.name);
  if (opts.scenarios === undefined) return [...DEFAULT_BATTERY];
  const refs = opts.scenarios.split(',').map((s) => s.trim());
  if (refs.some((r) => r === '')) throw new BatteryError(`--scenarios: "${opts.scenarios}" has an empty entry; give names or files separated by commas`);
  return refs;
}

export async function loadBattery(refs: string[]): Promise<BatteryScenario[]> {
  const battery: BatteryScenario[] = [];
  for (const ref of refs) {
    const loaded = await loadScenarioInput(ref);
    if (!loaded.ok) throw new BatteryError(`--scenarios: ${ref} was not loaded:\n${loaded.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
    battery.push({ ref, name: loaded.scenario.scenario ?? ref, scenario: loaded.scenario });
  }
  const names = battery.map((b) => b.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new BatteryError(`--scenarios: scenario "${twice}" is named twice`);
  return battery;
}
