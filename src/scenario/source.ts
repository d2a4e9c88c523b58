/**
 * A scenario that arrives over the network: the admin API's `PUT /scenario` and the fleet's
 * channel in Redis. Such a scenario is its text, a parsed object or the name of a built-in, and
 * nothing in it is ever taken for a path: a one-line body is text like any other (it fails the
 * schema), and a name reaches only the files in scenarios/. Only the operator's own command line
 * and library calls name files (`loadScenarioRef`).
 */
import { loadScenarioFile, loadScenarioText, type LoadResult } from './load.js';
import { resolveBuiltinScenario, BUILTIN_SCENARIO_DIR } from './builtin.js';
import { objectNestingExceeded, scenarioLimits, TOO_DEEP_MESSAGE, tooLargeMessage } from './limits.js';

export type ScenarioSource =
  /** YAML or JSON text; `name` labels its problems (default "scenario text"). */
  | { text: string; name?: string }
  /** A parsed document (a library object); `name` labels its problems. */
  | { object: unknown; name: string }
  /** JSON text that must hold a scenario object (what the fleet publishes in Redis). */
  | { json: string; name: string }
  /** A built-in scenario, by name only. */
  | { builtin: string };

export async function loadScenarioSource(source: ScenarioSource, builtinDir: string = BUILTIN_SCENARIO_DIR): Promise<LoadResult> {
  if ('text' in source) return loadScenarioText(source.text, source.name ?? 'scenario text');
  if ('builtin' in source) {
    const found = await resolveBuiltinScenario(source.builtin, builtinDir);
    if (!found.ok) return { ok: false, problems: [{ file: source.builtin.slice(0, 80), line: 0, col: 0, path: '', message: found.message }] };
    return loadScenarioFile(found.path);
  }
  if ('json' in source) return loadScenarioJson(source.json, source.name);
  return loadScenarioObject(source.object, source.name);
}

function loadScenarioJson(json: string, name: string): LoadResult {
  const whole = (message: string): LoadResult => ({ ok: false, problems: [{ file: name, line: 0, col: 0, path: '', message }] });
  const bytes = Buffer.byteLength(json);
  if (bytes > scenarioLimits().maxBytes) return whole(tooLargeMessage(bytes));
  let value: unknown;
  try {
    value = JSON.parse(json); // never recurses, whatever the nesting
  } catch (e) {
    return whole(`is not JSON (${(e as Error).message})`);
  }
  return loadScenarioObject(value, name);
}

/**
 * An object is checked as the JSON text it stands for: JSON.parse reads it back (a copy, so the
 * caller's object gets no defaults), and the YAML parser runs only to place a problem on a line.
 */
export function loadScenarioObject(value: unknown, name: string): LoadResult {
  const whole = (message: string): LoadResult => ({ ok: false, problems: [{ file: name, line: 0, col: 0, path: '', message }] });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return whole(`is ${kind}, not a scenario object; a scenario sent this way is never read as a name or a path`);
  }
  // Checked without recursion before JSON.stringify, which recurses once per level.
  if (objectNestingExceeded(value)) return whole(TOO_DEEP_MESSAGE);
  let text: string;
  try {
    text = JSON.stringify(value, null, 2);
  } catch (e) {
    return whole(`cannot be written as JSON (${(e as Error).message})`);
  }
  return loadScenarioText(text, name);
}
