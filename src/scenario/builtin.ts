/**
 * The built-in scenarios shipped in scenarios/: how a bare name given to --scenario becomes a
 * file inside that folder (and never outside it), and the list `aap-chaos scenarios` prints.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readYamlText } from './yaml-text.js';

/** scenarios/ of the package, the same relative to src/scenario and dist/scenario. */
export const BUILTIN_SCENARIO_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

const SCENARIO_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export type ResolvedScenarioRef = { ok: true; path: string; builtin: boolean } | { ok: false; message: string };

export interface BuiltinScenarioInfo {
  name: string;
  description: string;
}

/**
 * A bare name (no slash, no extension) is a built-in: `scenarios/<name>.yaml`. Anything else is a
 * path to a file, read as given.
 */
export async function resolveScenarioRef(nameOrPath: string, builtinDir: string = BUILTIN_SCENARIO_DIR): Promise<ResolvedScenarioRef> {
  const looksLikePath = /[/\\]/.test(nameOrPath) || path.extname(nameOrPath) !== '';
  if (looksLikePath) return { ok: true, path: nameOrPath, builtin: false };
  if (!SCENARIO_NAME.test(nameOrPath)) {
    const names = await builtinNames(builtinDir);
    return { ok: false, message: `"${nameOrPath}" is neither a built-in scenario name nor a file path; built-in scenarios: ${names.join(', ') || '(none)'}` };
  }
  return resolveBuiltinScenario(nameOrPath, builtinDir);
}

/** A built-in scenario's file, found by its name alone: what a name sent over the network may reach. */
export async function resolveBuiltinScenario(name: string, builtinDir: string = BUILTIN_SCENARIO_DIR): Promise<ResolvedScenarioRef> {
  const names = await builtinNames(builtinDir);
  const known = `built-in scenarios: ${names.join(', ') || '(none)'}`;
  if (!SCENARIO_NAME.test(name)) return { ok: false, message: `"${name.slice(0, 80)}" is not a built-in scenario name (letters, digits, - and _); ${known}` };
  if (!names.includes(name)) return { ok: false, message: `no built-in scenario named "${name}"; ${known}` };
  // The name is one of the files listed in the folder, so the path cannot leave it.
  return { ok: true, path: path.join(path.resolve(builtinDir), `${name}.yaml`), builtin: true };
}

async function builtinNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** Name and description of every built-in scenario, sorted by name. */
export async function listBuiltinScenarios(dir: string = BUILTIN_SCENARIO_DIR): Promise<BuiltinScenarioInfo[]> {
  const list: BuiltinScenarioInfo[] = [];
  for (const name of await builtinNames(dir)) {
    const text = await readFile(path.join(dir, `${name}.yaml`), 'utf8');
    let description = '';
    try {
      const doc: unknown = readYamlText(text)?.value;
      if (typeof doc === 'object' && doc && typeof (doc as { description?: unknown }).description === 'string')
        description = (doc as { description: string }).description;
    } catch {
      // A broken built-in still shows up in the list; `validate` names its problems.
    }
    list.push({ name, description });
  }
  return list;
}
