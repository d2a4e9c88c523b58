/**
 * A scenario as callers hand it over — a built-in name, a file path, YAML or JSON text, or a parsed
 * object — turned into a validated scenario. Shared by the runtime, the admin API, `--workers` and
 * the exam, so every way in accepts and refuses the same input with the same problems.
 */
import { formatProblem, loadScenarioRef, loadScenarioText, type LoadResult } from './load.js';
import { loadScenarioObject } from './source.js';
import type { Scenario } from './types.generated.js';

/** A scenario as callers may give it: a built-in name, a file path, YAML or JSON text, or a parsed object. */
export type ScenarioInput = string | Scenario;

/** A scenario that failed validation; `problems` are formatted exactly as `aap-chaos validate` prints them. */
export class ScenarioRejectedError extends Error {
  override name = 'ScenarioRejectedError';
  constructor(readonly problems: string[]) {
    super(`scenario rejected, ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * Turns any scenario form a local caller may give into a validated scenario; only here may a
 * string name a file (the operator's own command line or code). Input from the network goes
 * through loadScenarioSource (`source.ts`) instead.
 */
export async function loadScenarioInput(input: ScenarioInput): Promise<LoadResult> {
  if (typeof input !== 'string') return loadScenarioObject(input, 'scenario object');
  const trimmed = input.trim();
  if (trimmed.includes('\n') || trimmed.startsWith('{')) return loadScenarioText(input, 'scenario text');
  return loadScenarioRef(trimmed);
}

/** The validated scenario, or a ScenarioRejectedError listing every problem. */
export async function validScenario(input: ScenarioInput): Promise<Scenario> {
  const result = await loadScenarioInput(input);
  if (!result.ok) throw new ScenarioRejectedError(result.problems.map(formatProblem));
  return result.scenario;
}
